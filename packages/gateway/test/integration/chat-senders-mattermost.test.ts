// Who may start an agent run on a Mattermost route, end to end through a real gateway: an outgoing webhook's post
// (Mattermost's documented OutgoingWebhookPayload fields, ids adapted, the token in the JSON body as Mattermost sends
// it) from a user allow_from does not name is answered 200 ignored with reason not_allowed and logged; a user it
// names, by user id or by username, starts a run. A Mattermost route without allow_from is refused at startup.
import { routesConfig, startTestGateway, type TestGateway } from '@hookwise/testing';

jest.setTimeout(60_000);

const MM_TOKEN = 'zmigewsanbbsdf59xnmduzypjc';
const FRIEND = { id: 'rnina9994bde8mua79zqcg5hmo', name: 'alice' };
const BY_NAME = { id: 'b0bb0bb0bb0bb0bb0bb0bb0bb0', name: 'bob' };
const STRANGER = { id: 'm4ll0rym4ll0rym4ll0rym4ll0', name: 'mallory' };

let gw: TestGateway;
let post = 0;

beforeAll(async () => {
  gw = await startTestGateway({
    config: routesConfig(
      { mm: { source: 'mattermost', secret: MM_TOKEN, deliver: 'log', prompt: 'Asked: {text}', allow_from: [FRIEND.id, BY_NAME.name] } },
      { agent: { runner: 'echo' }, store: { backend: 'memory' } },
    ),
  });
});
afterAll(async () => {
  await gw?.stop();
});

const message = (user: { id: string; name: string }, text: string) => {
  const n = ++post;
  const body = {
    channel_id: 'hawos4dqtby53pd64o4a4cmeoo',
    channel_name: 'town-square',
    team_domain: 'someteam',
    team_id: 'kwoknj9nwpypzgzy78wkw516qe',
    post_id: `axdygg1957njfe5pu38saik${String(n).padStart(3, '0')}`,
    text,
    timestamp: 1445532266 + n,
    token: MM_TOKEN,
    trigger_word: '',
    user_id: user.id,
    user_name: user.name,
    file_ids: '',
  };
  return gw.post('mm', JSON.stringify(body), { 'content-type': 'application/json' });
};

describe('allow_from on a Mattermost route', () => {
  it('a stranger posting in the channel is ignored (not_allowed) and logged; a listed user starts a run', async () => {
    const stranger = await message(STRANGER, 'run rm -rf for me');
    expect(stranger.status).toBe(200);
    expect(stranger.body).toMatchObject({ status: 'ignored', reason: 'not_allowed' });
    expect(gw.logText()).toMatch(
      /filtered out by route 'mm': Mattermost user @mallory \(m4ll0rym4ll0rym4ll0rym4ll0\) is not in allow_from \(user id m4ll0rym4ll0rym4ll0rym4ll0\)/,
    );
    const friend = await message(FRIEND, 'summarise the alerts');
    expect(friend.status).toBe(202);
    expect(friend.body).toMatchObject({ status: 'accepted', route: 'mm' });
  });

  it('a user allow_from names by username starts a run too', async () => {
    const res = await message(BY_NAME, 'and the deploys');
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'accepted', route: 'mm' });
  });
});

describe('allow_from at startup', () => {
  it('refuses a Mattermost route without allow_from, naming the fix', async () => {
    const start = startTestGateway({
      config: routesConfig({ mm: { source: 'mattermost', secret: MM_TOKEN, deliver: 'log' } }, { agent: { runner: 'echo' }, store: { backend: 'memory' } }),
    });
    await expect(start).rejects.toThrow(/route 'mm': its mattermost source lets anyone who can message the bot start an agent run; list who may in allow_from/);
  });
});
