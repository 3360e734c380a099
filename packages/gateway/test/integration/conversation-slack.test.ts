// Conversations on Slack (issue 31), end to end over real HTTP against a Web API stand-in: a route's answer is
// posted with chat.postMessage (the stand-in answering with Slack's documented example); a person's message in that
// thread (Slack's documented message event with thread_ts, signed with the signing secret, the signature checked
// with @slack/bolt) arrives on the Slack inbound route and runs the ORIGINAL route again, whose agent (a command
// that echoes its prompt) sees the first answer and the reply, and whose answer is posted with thread_ts into the
// same thread; a reply also sent to the channel (thread_broadcast) continues it too. A stranger in the thread and
// the bot's own messages run nothing of the conversation.
import type { RecordingServer } from '@hookwise/testing';
import { conversationHarness } from './conversation-harness';
import { slackPosted, slackSigned, slackThreadMessage } from './documented-payloads';

jest.setTimeout(60_000);

const SECRET = 'conversation-slack-alert-secret-0123456789';
const SIGNING_SECRET = 'slack-signing-secret-0123456789abcdef';
const CHANNEL = 'C123ABC456';
const ALLOWED = 'U123ABC456';

const conv = conversationHarness('slack', SECRET);
let api: RecordingServer;
let posted = 0;
let eventN = 0;

const posts = () => api.requests.filter((r) => r.path === '/api/chat.postMessage');
const delivered = () => conv.delivered('alerts');

/** Slack's documented message event in a thread (documented-payloads.ts), signed v0 with the app's signing secret. */
async function threadMessage(user: string | undefined, threadTs: string, text: string, extra: Record<string, unknown> = {}) {
  eventN += 1;
  const body = slackThreadMessage({ n: eventN, channel: CHANNEL, user, threadTs, text, extra });
  return conv.gw.post('slack-in', body, slackSigned(SIGNING_SECRET, body));
}

beforeAll(async () => {
  api = await conv.startApi((req) =>
    req.path === '/api/auth.test'
      ? { json: { ok: true, user: 'hookwise', team: 'Test' } }
      : { json: slackPosted(CHANNEL, `1700000000.00000${++posted}`, req.json) },
  );
  await conv.start({
    platforms: {
      slack: { enabled: true, token: 'xoxb-conversation-test-token', api_base: api.url },
      webhook: {
        enabled: true,
        extra: {
          routes: {
            alerts: conv.answeredRoute('slack', CHANNEL, { allow_from: [ALLOWED] }),
            'slack-in': { source: 'slack', secret: SIGNING_SECRET, prompt: 'Inbound: {event.text}', deliver: 'log', allow_from: ['*'] },
          },
        },
      },
    },
    agent: conv.agent,
    retry: { max_attempts: 1 },
    store: { backend: 'memory' },
  });
});

it('continues a conversation from a reply in the thread, answering with thread_ts in the same channel', async () => {
  const first = await conv.alert('alerts', 'queue backed up', 'slack-alert-1');
  expect(first.status).toBe(202);
  await conv.waitFor('the first answer', () => delivered() === 1);
  expect(posts()[0].json).toMatchObject({ channel: CHANNEL, text: 'ECHO[Alert: queue backed up]' });
  expect((posts()[0].json as Record<string, unknown>).thread_ts).toBeUndefined();
  const root = '1700000000.000001';

  const answer = await threadMessage(ALLOWED, root, 'which queue?');
  expect(answer.status).toBe(202);
  expect(answer.body).toMatchObject({ status: 'accepted', route: 'alerts', turn: 2 });
  await conv.waitFor('the answer in the thread', () => delivered() === 2);
  const second = posts()[1].json as { channel: string; text: string; thread_ts?: string };
  expect(second.channel).toBe(CHANNEL);
  expect(second.thread_ts).toBe(root);
  expect(second.text).toContain('Alert: queue backed up');
  expect(second.text).toContain('ECHO[Alert: queue backed up]');
  expect(second.text).toContain('which queue?');
  expect(second.text).toContain(`Slack user ${ALLOWED}`);

  // A stranger in the thread, and the bot's own message there (Slack sends it as an event too, with its bot_id,
  // whatever user id it carries), continue nothing.
  await threadMessage('U999STRANGE', root, 'me too');
  expect(conv.gw.logText()).toContain("user U999STRANGE is not in conversation.allow_from of route 'alerts'");
  await threadMessage(ALLOWED, root, 'my own answer', { bot_id: 'B123ABC456', app_id: 'A123ABC456' });
  await new Promise((r) => setTimeout(r, 500));
  expect(posts().length).toBe(2);
  expect(delivered()).toBe(2);

  // A reply the person also sends to the channel (subtype thread_broadcast, as Slack documents it) continues it.
  const broadcast = await threadMessage(ALLOWED, root, 'and the other queue?', { subtype: 'thread_broadcast' });
  expect(broadcast.body).toMatchObject({ status: 'accepted', route: 'alerts', turn: 3 });
  await conv.waitFor('the answer to the broadcast reply', () => delivered() === 3);
  expect(posts()[2].json).toMatchObject({ channel: CHANNEL, thread_ts: root });
  expect((posts()[2].json as { text: string }).text).toContain('and the other queue?');
});
