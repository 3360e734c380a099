// The gateway's own messages coming back (Source.ownMessage): a platform that sends a chat's every message to its
// webhook sends the gateway's answers too. A route whose agent answers in that chat would answer itself, message
// after message; its source says which messages are the gateway's own, and the route ignores them (200, reason
// own_message, no job, the lifecycle's `ignored`) before any filter, while everyone else's messages run as before.
// Over real HTTP, with the platforms' payloads: a BlueBubbles new-message (isFromMe), a Matrix application-service
// transaction of the bot user's message (source_options.ignore_users), a Mattermost outgoing webhook of the bot's post,
// a Slack message event posted by the app's bot user (the envelope's bot authorization).
import { createHmac, randomUUID } from 'node:crypto';
import { routesConfig, startTestGateway, type TestGateway } from '@hookwise/testing';
import { NEW_MESSAGE_REPLY } from '../../../../plugins/source-bluebubbles/test/fixtures/bluebubbles-server';

const BB_SECRET = 'bb-own-message-secret-0123456789';
const HS_TOKEN = 'matrix-hs-token-own-messages-0123456789';
const MM_TOKEN = 'mattermost-own-message-token-0123';
const BOT = '@hookwise:example.org';
const SLACK_SIGNING = 'slack-own-message-signing-secret-0123';

let gw: TestGateway;
const ignored: string[] = [];

beforeAll(async () => {
  gw = await startTestGateway({
    config: routesConfig(
      {
        imessage: { source: 'bluebubbles', secret: BB_SECRET, prompt: 'p', deliver: 'log', allow_from: ['*'] },
        mx: { source: 'matrix', secret: HS_TOKEN, source_options: { ignore_users: [BOT] }, prompt: 'p', deliver: 'log', allow_from: ['*'] },
        mm: { source: 'mattermost', secret: MM_TOKEN, source_options: { ignore_users: ['hookwise-bot'] }, prompt: 'p', deliver: 'log', allow_from: ['*'] },
        sl: { source: 'slack', secret: SLACK_SIGNING, prompt: 'p', deliver: 'log', allow_from: ['*'] },
      },
      {
        agent: { runner: 'echo' },
      },
    ),
  });
  gw.gateway.on('ignored', (e) => ignored.push(`${e.route}:${e.reason}`));
});
afterAll(() => gw?.stop());

async function post(path: string, body: unknown, init: { method?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${gw.url}/webhooks/${path}`, {
    method: init.method ?? 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...init.headers },
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const bluebubbles = (isFromMe: boolean) => ({ ...NEW_MESSAGE_REPLY, data: { ...NEW_MESSAGE_REPLY.data, guid: randomUUID().toUpperCase(), isFromMe } });
const matrixTransaction = (sender: string) => ({
  events: [
    {
      type: 'm.room.message',
      room_id: '!ops:example.org',
      sender,
      event_id: `$${randomUUID()}`,
      origin_server_ts: 1732579200000,
      content: { msgtype: 'm.text', body: 'Disk is at 91%' },
    },
  ],
});
const mattermost = (userName: string) => ({
  token: MM_TOKEN,
  team_id: 'team1',
  team_domain: 'ops',
  channel_id: 'c4i6r7x8yfbsbmdc9iszwqhw1r',
  channel_name: 'alerts',
  timestamp: 1732579200000,
  user_id: `${userName}-id-0123456789ab`,
  user_name: userName,
  post_id: randomUUID().replace(/-/g, '').slice(0, 26),
  text: 'Disk is at 91%',
  trigger_word: '',
  file_ids: '',
});

it("ignores the gateway's own BlueBubbles message (isFromMe) and runs everyone else's", async () => {
  const own = await post(`imessage?secret=${BB_SECRET}`, bluebubbles(true));
  expect(own).toEqual({ status: 200, body: expect.objectContaining({ status: 'ignored', reason: 'own_message' }) });
  expect((await post(`imessage?secret=${BB_SECRET}`, bluebubbles(false))).status).toBe(202);
});

it("ignores a Matrix transaction of the bot user's messages, and takes one of a person's", async () => {
  const auth = { authorization: `Bearer ${HS_TOKEN}` };
  // A homeserver wants 200 {} for any transaction it may stop sending: the route's decision shows in the lifecycle.
  const own = await post(`mx/_matrix/app/v1/transactions/${randomUUID()}`, matrixTransaction(BOT), { method: 'PUT', headers: auth });
  expect(own).toEqual({ status: 200, body: {} });
  const person = await post(`mx/_matrix/app/v1/transactions/${randomUUID()}`, matrixTransaction('@alice:example.org'), { method: 'PUT', headers: auth });
  expect(person).toEqual({ status: 200, body: {} });
  expect(ignored).toContain('mx:own_message');
  expect(ignored.filter((line) => line.startsWith('mx:'))).toHaveLength(1);
});

it("ignores the Mattermost bot's own post, and runs a person's", async () => {
  expect(await post('mm', mattermost('hookwise-bot'))).toEqual({ status: 200, body: expect.objectContaining({ status: 'ignored', reason: 'own_message' }) });
  expect((await post('mm', mattermost('alice'))).status).toBe(202);
  expect(ignored).toEqual(expect.arrayContaining(['imessage:own_message', 'mm:own_message']));
});

/** A Slack Events API message envelope, signed as Slack signs (v0=HMAC-SHA256 of "v0:<timestamp>:<body>"). */
async function slackMessage(user: string, botId: string | undefined) {
  const body = JSON.stringify({
    token: 'one-long-verification-token',
    team_id: 'T123ABC456',
    api_app_id: 'A123ABC456',
    event: { type: 'message', channel: 'C123ABC456', user, ...(botId ? { bot_id: botId } : {}), text: 'Disk is at 91%', ts: '1355517523.000005' },
    type: 'event_callback',
    authorizations: [{ enterprise_id: null, team_id: 'T123ABC456', user_id: 'U0HOOKWISE', is_bot: true, is_enterprise_install: false }],
    event_id: `Ev${randomUUID().replace(/-/g, '').slice(0, 10)}`,
    event_time: 1355517523,
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac('sha256', SLACK_SIGNING).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  const res = await fetch(`${gw.url}/webhooks/sl`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-slack-request-timestamp': timestamp, 'x-slack-signature': signature },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

it("ignores the Slack app's own bot post, and runs a person's message", async () => {
  expect(await slackMessage('U0HOOKWISE', 'B0HOOKWISE')).toEqual({ status: 200, body: expect.objectContaining({ status: 'ignored', reason: 'own_message' }) });
  expect((await slackMessage('U0ALICE', undefined)).status).toBe(202);
});
