// Conversations on Slack (issue 31), end to end over real HTTP against a Web API stand-in: a route's answer is
// posted with chat.postMessage; a person's message in that thread (an Events API event_callback with thread_ts, as
// in Slack's docs, signed with the signing secret) arrives on the Slack inbound route and runs the ORIGINAL route
// again, whose agent (a command that echoes its prompt) sees the first answer and the reply, and whose answer is
// posted with thread_ts into the same thread. A stranger in the thread and the bot's own messages run nothing
// of the conversation.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signGeneric, startRecordingServer, startTestGateway, type RecordingServer, type TestGateway } from '@hookwise/testing';

jest.setTimeout(60_000);

const SECRET = 'conversation-slack-alert-secret-0123456789';
const SIGNING_SECRET = 'slack-signing-secret-0123456789abcdef';
const CHANNEL = 'C123ABC456';
const ALLOWED = 'U123ABC456';

const agentDir = mkdtempSync(join(tmpdir(), 'hookwise-conv-slack-agent-'));
const agent = join(agentDir, 'echo-prompt.js');
writeFileSync(agent, `let p = ''; process.stdin.on('data', (c) => (p += c)).on('end', () => process.stdout.write('ECHO[' + p + ']'));\n`);

let api: RecordingServer;
let gw: TestGateway | undefined;
let posted = 0;
let eventN = 0;

const posts = () => api.requests.filter((r) => r.path === '/api/chat.postMessage');
const delivered = () => gw!.logs.filter((l) => /^delivered .* on route 'alerts'/.test(String(l.message))).length;

async function waitFor(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A message event in a thread, as Slack's Events API posts it, signed v0 with the app's signing secret. */
async function threadMessage(user: string, threadTs: string, text: string, extra: Record<string, unknown> = {}) {
  eventN += 1;
  const body = JSON.stringify({
    token: 'verification-token-unused',
    team_id: 'T123ABC456',
    api_app_id: 'A123ABC456',
    event: {
      type: 'message',
      channel: CHANNEL,
      user,
      text,
      ts: `1700000100.00000${eventN}`,
      thread_ts: threadTs,
      event_ts: `1700000100.00000${eventN}`,
      channel_type: 'channel',
      ...extra,
    },
    type: 'event_callback',
    event_id: `Ev0CONV${eventN}`,
    event_time: 1700000100,
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac('sha256', SIGNING_SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return gw!.post('slack-in', body, { 'content-type': 'application/json', 'x-slack-signature': signature, 'x-slack-request-timestamp': timestamp });
}

beforeAll(async () => {
  api = await startRecordingServer((req) =>
    req.path === '/api/auth.test'
      ? { json: { ok: true, user: 'hookwise', team: 'Test' } }
      : { json: { ok: true, channel: CHANNEL, ts: `1700000000.00000${++posted}` } },
  );
  gw = await startTestGateway({
    config: {
      platforms: {
        slack: { enabled: true, token: 'xoxb-conversation-test-token', api_base: api.url },
        webhook: {
          enabled: true,
          extra: {
            routes: {
              alerts: {
                secret: SECRET,
                prompt: 'Alert: {title}',
                deliver: 'slack',
                deliver_extra: { chat_id: CHANNEL },
                conversation: { enabled: true, allow_from: [ALLOWED] },
              },
              'slack-in': { source: 'slack', secret: SIGNING_SECRET, prompt: 'Inbound: {event.text}', deliver: 'log' },
            },
          },
        },
      },
      agent: { runner: 'command', command: [process.execPath, agent] },
      retry: { max_attempts: 1 },
      store: { backend: 'memory' },
    },
    env: { ...process.env, WEBHOOK_PORT: '', WEBHOOK_SECRET: '', WEBHOOK_ENABLED: '', WEBHOOK_HOST: '' },
    pollMs: 20,
  });
});
afterAll(async () => {
  await gw?.stop();
  await api?.close();
  rmSync(agentDir, { recursive: true, force: true });
});

it('continues a conversation from a reply in the thread, answering with thread_ts in the same channel', async () => {
  const body = JSON.stringify({ title: 'queue backed up' });
  const first = await gw!.post('alerts', body, { 'x-webhook-signature': signGeneric(SECRET, body), 'x-request-id': 'slack-alert-1' });
  expect(first.status).toBe(202);
  await waitFor('the first answer', () => delivered() === 1);
  expect(posts()[0].json).toMatchObject({ channel: CHANNEL, text: 'ECHO[Alert: queue backed up]' });
  expect((posts()[0].json as Record<string, unknown>).thread_ts).toBeUndefined();
  const root = '1700000000.000001';

  const answer = await threadMessage(ALLOWED, root, 'which queue?');
  expect(answer.status).toBe(202);
  expect(answer.body).toMatchObject({ status: 'accepted', route: 'alerts', turn: 2 });
  await waitFor('the answer in the thread', () => delivered() === 2);
  const second = posts()[1].json as { channel: string; text: string; thread_ts?: string };
  expect(second.channel).toBe(CHANNEL);
  expect(second.thread_ts).toBe(root);
  expect(second.text).toContain('Alert: queue backed up');
  expect(second.text).toContain('ECHO[Alert: queue backed up]');
  expect(second.text).toContain('which queue?');
  expect(second.text).toContain(`Slack user ${ALLOWED}`);

  // A stranger in the thread, and the bot's own message there (Slack sends it as an event too), continue nothing.
  await threadMessage('U999STRANGE', root, 'me too');
  expect(gw!.logText()).toContain("user U999STRANGE is not in conversation.allow_from of route 'alerts'");
  await threadMessage(ALLOWED, root, 'my own answer', { bot_id: 'B123', user: undefined });
  await new Promise((r) => setTimeout(r, 500));
  expect(posts().length).toBe(2);
  expect(delivered()).toBe(2);
});
