// Who may start an agent run on a chat route, end to end through a real gateway: a Telegram bot's inbound route
// and a Slack Events API route name the people in `allow_from`; a message from anyone else (the platforms'
// documented payloads: Telegram's "Message" update, Slack's message.channels event, ids adapted, Slack's signed as
// Slack signs) is answered 200 ignored with reason not_allowed and logged, and starts nothing. `allow_from: ["*"]`
// answers everyone and says so at startup; a chat route without allow_from, or allow_from on a source that
// cannot name a sender, is refused at startup.
import { routesConfig, startTestGateway, type TestGateway } from '@hookwise/testing';
import { slackChannelMessage, slackSigned, telegramMessage } from './documented-payloads';

jest.setTimeout(60_000);

const TG_SECRET = 'telegram-secret-token-senders';
const SLACK_SIGNING = 'slack-signing-secret-senders-0123456789';
const FRIEND = 4242;
const STRANGER = 666;

let gw: TestGateway;
let update = 5000;

beforeAll(async () => {
  gw = await startTestGateway({
    config: routesConfig(
      {
        bot: { source: 'telegram', secret: TG_SECRET, deliver: 'log', prompt: 'Asked: {message.text}', allow_from: [FRIEND] },
        open: { source: 'telegram', secret: TG_SECRET, deliver: 'log', prompt: 'Asked: {message.text}', allow_from: ['*'] },
        team: { source: 'slack', secret: SLACK_SIGNING, deliver: 'log', prompt: 'Asked: {event.text}', allow_from: ['U0FRIEND'] },
      },
      { agent: { runner: 'echo' }, store: { backend: 'memory' } },
    ),
  });
});
afterAll(async () => {
  await gw?.stop();
});

const telegram = (route: string, from: number, text: string) => {
  const n = ++update;
  return gw.post(route, telegramMessage({ updateId: n, messageId: n, chat: from, from, text }), {
    'content-type': 'application/json',
    'x-telegram-bot-api-secret-token': TG_SECRET,
  });
};

describe('allow_from on a chat route', () => {
  it('a stranger messaging the Telegram bot is ignored (not_allowed) and logged; a listed user starts a run', async () => {
    const stranger = await telegram('bot', STRANGER, 'run rm -rf for me');
    expect(stranger.status).toBe(200);
    expect(stranger.body).toMatchObject({ status: 'ignored', reason: 'not_allowed' });
    expect(gw.logText()).toMatch(/filtered out by route 'bot': Telegram user 666 \(Test Firstname Test Lastname\) is not in allow_from \(user id 666\)/);
    const friend = await telegram('bot', FRIEND, 'summarise the alerts');
    expect(friend.status).toBe(202);
    expect(friend.body).toMatchObject({ status: 'accepted', route: 'bot' });
  });

  it('a Slack message from a user allow_from does not name is ignored; the listed user starts a run', async () => {
    const post = (n: number, user: string) => {
      const body = slackChannelMessage({ n, channel: 'C0TEAM', user, text: 'hello bot' });
      return gw.post('team', body, slackSigned(SLACK_SIGNING, body));
    };
    const stranger = await post(1, 'U0STRANGER');
    expect([stranger.status, stranger.body]).toEqual([200, expect.objectContaining({ status: 'ignored', reason: 'not_allowed' })]);
    expect(gw.logText()).toMatch(/filtered out by route 'team': Slack user U0STRANGER is not in allow_from/);
    expect((await post(2, 'U0FRIEND')).status).toBe(202);
  });

  it('allow_from: ["*"] answers anyone, and the startup says so', async () => {
    expect((await telegram('open', STRANGER, 'hi')).status).toBe(202);
    expect(gw.logText()).toContain(`route 'open': allow_from: ["*"] lets anyone who can message the bot start an agent run`);
  });
});

describe('allow_from at startup', () => {
  const start = (routes: Record<string, Record<string, unknown>>) =>
    startTestGateway({ config: routesConfig(routes, { agent: { runner: 'echo' }, store: { backend: 'memory' } }) });

  it('refuses a chat route without allow_from, naming the fix', async () => {
    await expect(start({ bot: { source: 'telegram', secret: TG_SECRET, deliver: 'log' } })).rejects.toThrow(
      /route 'bot': its telegram source lets anyone who can message the bot start an agent run; list who may in allow_from .* or write allow_from: \["\*"\]/,
    );
  });

  it('refuses allow_from on a route whose source cannot name a sender', async () => {
    await expect(start({ ci: { source: 'github', secret: 'github-secret-0123456789abcdef', deliver: 'log', allow_from: ['octocat'] } })).rejects.toThrow(
      /route 'ci': allow_from needs a source that names who wrote a message .*the github source names none/,
    );
  });
});
