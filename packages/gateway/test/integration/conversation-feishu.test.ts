// Conversations on Feishu (issue 31), end to end over real HTTP against a stand-in of the open platform, on a SQLite
// store: a route's answer is sent to a group chat with Send message (the stand-in answering as the docs' response
// example does, message ids adapted); a person replies to it in Feishu, which Feishu posts to the inbound route as
// the documented `im.message.receive_v1` event (parent_id: the answer), encrypted with the app's Encrypt Key and
// signed with X-Lark-Signature exactly as Feishu does ("Receive and process events"); the ORIGINAL route runs again,
// its agent (a command that echoes its prompt) seeing the event, the first answer and the reply, and its answer goes
// back with Reply message (POST /open-apis/im/v1/messages/:message_id/reply) to the person's message (in its thread).
// A reply from someone not in allow_from runs nothing; a reply to a message the gateway never sent goes to its own
// route as any event.
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { expectInOrder, type RecordedRequest, type RecordingServer } from '@hookwise/testing';
import { conversationHarness } from './conversation-harness';

jest.setTimeout(90_000);

const SECRET = 'conversation-alert-secret-0123456789';
/** The app's Encrypt Key (the inbound route's secret) and Verification Token, as Events & Callbacks shows them. */
const ENCRYPT_KEY = 'feishu-encrypt-key-0123456789';
const VERIFICATION_TOKEN = 'rvaYgkND1GOiu5MM0E1rncYC6PLtF7JV';
const CHAT = 'oc_5ce6d572455d361153b7xx51da133945';
const ALICE = 'ou_84aad35d084aa403a838cf73ee18467';
const MALLORY = 'ou_9d3c7e1b2a4f5e6d7c8b9a0f1e2d3c4b';

const conv = conversationHarness('feishu', SECRET);
let api: RecordingServer;
let nextMessage = 0;
let nextEvent = 0;

const config = (apiBase: string) => ({
  platforms: {
    feishu: { enabled: true, app_id: 'cli_9f5343c580712544', app_secret: 'feishu-app-secret-0123456789', api_base: apiBase },
    webhook: {
      enabled: true,
      extra: {
        routes: {
          alerts: conv.answeredRoute('feishu', CHAT, { max_turns: 3, ttl_hours: 1, allow_from: [ALICE] }),
          lark: {
            source: 'feishu',
            secret: ENCRYPT_KEY,
            source_options: { verification_token: VERIFICATION_TOKEN },
            prompt: 'Feishu message: {event.message.content}',
            deliver: 'log',
            allow_from: ['*'],
          },
        },
      },
    },
  },
  agent: conv.agent,
  retry: { max_attempts: 2, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
  store: { backend: 'sqlite' },
});

/** Send message and Reply message: the docs' response body example (fields as the SDK types them), ids adapted. */
function sentMessage(req: RecordedRequest) {
  nextMessage += 1;
  const replyTo = /\/messages\/(om_[^/]+)\/reply$/.exec(req.path)?.[1];
  const body = req.json as { content: string; msg_type: string };
  return {
    code: 0,
    msg: 'success',
    data: {
      message_id: `om_dc13264520392913993dd051dba2${String(nextMessage).padStart(4, '0')}`,
      ...(replyTo ? { root_id: replyTo, parent_id: replyTo } : {}),
      msg_type: body.msg_type,
      create_time: '1615380573411',
      update_time: '1615380573411',
      deleted: false,
      updated: false,
      chat_id: CHAT,
      sender: { id: 'cli_9f5343c580712544', id_type: 'app_id', sender_type: 'app', tenant_key: '736588c9260f175e' },
      body: { content: body.content },
    },
  };
}

/** "Receive and process events": base64 of a random IV and AES-256-CBC (key sha256(Encrypt Key)) of the event. */
function encrypted(event: unknown): string {
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', createHash('sha256').update(ENCRYPT_KEY).digest(), iv);
  return JSON.stringify({ encrypt: Buffer.concat([iv, cipher.update(JSON.stringify(event), 'utf8'), cipher.final()]).toString('base64') });
}

/**
 * The "Receive message" example (open.feishu.cn/document/server-docs/im-v1/message/events/receive), ids adapted:
 * `from` writes `text` in CHAT as a reply to message `to` (parent_id and, for a reply outside a thread, root_id);
 * with `thread`, in that thread (topic), as the example's `thread_id` says.
 */
async function reply(from: string, to: string, text: string, thread?: string) {
  nextEvent += 1;
  const event = {
    schema: '2.0',
    header: {
      event_id: `5e3702a84e847582be8db7fb7328${String(nextEvent).padStart(4, '0')}`,
      event_type: 'im.message.receive_v1',
      create_time: '1608725989000',
      token: VERIFICATION_TOKEN,
      app_id: 'cli_9f5343c580712544',
      tenant_key: '2ca1d211f64f6438',
    },
    event: {
      sender: { sender_id: { union_id: `on_${from.slice(3)}`, user_id: 'e33ggbyz', open_id: from }, sender_type: 'user', tenant_key: '736588c9260f175e' },
      message: {
        message_id: `om_5ce6d572455d361153b7cb51da13${String(nextEvent).padStart(4, '0')}`,
        root_id: to,
        parent_id: to,
        create_time: '1609073151345',
        update_time: '1687343654666',
        chat_id: CHAT,
        chat_type: 'group',
        ...(thread ? { thread_id: thread } : {}),
        message_type: 'text',
        content: JSON.stringify({ text }),
        user_agent: 'Mozilla/5.0',
      },
    },
  };
  const body = encrypted(event);
  // X-Lark-Signature: hex sha256 of timestamp + nonce + Encrypt Key + the body, as Feishu signs it ("Receive and
  // process events", signature verification); computed here, not with the source's own function.
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(8).toString('hex');
  const headers = {
    'content-type': 'application/json',
    'x-lark-request-timestamp': timestamp,
    'x-lark-request-nonce': nonce,
    'x-lark-signature': createHash('sha256')
      .update(timestamp + nonce + ENCRYPT_KEY + body)
      .digest('hex'),
  };
  return conv.gw.post('lark', body, headers);
}

/** The message id of the person's n-th message (the event's message_id). */
const personMessage = (n: number) => `om_5ce6d572455d361153b7cb51da13${String(n).padStart(4, '0')}`;

const messages = () => api.requests.filter((r) => r.path.startsWith('/open-apis/im/v1/messages'));
const text = (r: RecordedRequest) => (JSON.parse((r.json as { content: string }).content) as { text: string }).text;
const delivered = () => conv.delivered('alerts');

beforeAll(async () => {
  api = await conv.startApi((req) => {
    if (req.path === '/open-apis/auth/v3/tenant_access_token/internal')
      return { json: { code: 0, msg: 'ok', tenant_access_token: 't-g1044ab7conversationfeishu', expire: 7200 } };
    if (req.path === '/open-apis/bot/v3/info') return { json: { code: 0, msg: 'ok', bot: { app_name: 'Hookwise' } } };
    return { json: sentMessage(req) };
  });
  await conv.start(config(api.url));
});

describe('conversations on Feishu, through a real gateway on SQLite', () => {
  it("continues the conversation when an allowed person replies, answering with Reply message to the person's message", async () => {
    expect((await conv.alert('alerts', 'disk full')).status).toBe(202);
    await conv.waitFor('the first answer', () => delivered() === 1);
    const [first] = messages();
    expect([first.path, first.query.get('receive_id_type')]).toEqual(['/open-apis/im/v1/messages', 'chat_id']);
    expect(first.json).toMatchObject({ receive_id: CHAT, msg_type: 'text' });
    expect(text(first)).toBe('ECHO[Alert: disk full]');
    const answered = 'om_dc13264520392913993dd051dba20001';

    // Feishu counts only a 200 as delivered: the source answers every event it takes `200 {}`.
    const answer = await reply(ALICE, answered, 'why is it full?');
    expect([answer.status, answer.body]).toEqual([200, {}]);
    await conv.waitFor('the second answer', () => delivered() === 2);
    expect(conv.gw.logText()).toContain(`Feishu user ${ALICE}'s reply on route 'lark' to conversation`);
    expect(conv.gw.logText()).toMatch(/continues conversation \S+ as turn 2/);
    const second = messages()[1];
    // Reply message to the person's message (the one they wrote), not to the gateway's answer they replied to.
    expect([second.method, second.path]).toEqual(['POST', `/open-apis/im/v1/messages/${personMessage(nextEvent)}/reply`]);
    expect(second.json).not.toHaveProperty('reply_in_thread');
    expect(second.headers.authorization).toBe('Bearer t-g1044ab7conversationfeishu');
    expect(second.json).toMatchObject({ msg_type: 'text' });
    // The second run saw the event's prompt, the first answer and the reply, in that order.
    const seen = text(second);
    expectInOrder(seen, ['Alert: disk full', 'ECHO[Alert: disk full]', 'why is it full?']);
    expect(seen).toContain('turn 2 of at most 3');

    // A reply to that answer (the reply's own message id) in a thread (topic) continues the same conversation; the
    // answer replies to the person's message in that thread.
    await reply(ALICE, 'om_dc13264520392913993dd051dba20002', 'and now?', 'omt_d4be107c616');
    await conv.waitFor('the third answer', () => delivered() === 3);
    expect(messages()[2].path).toBe(`/open-apis/im/v1/messages/${personMessage(nextEvent)}/reply`);
    expect(messages()[2].json).toMatchObject({ msg_type: 'text', reply_in_thread: true });
    expect(text(messages()[2])).toContain('why is it full?');
    expect(text(messages()[2])).toContain('and now?');
  });

  it('runs nothing for a reply from someone not in allow_from', async () => {
    const before = messages().length;
    const answer = await reply(MALLORY, 'om_dc13264520392913993dd051dba20001', 'do something else');
    expect(answer.status).toBe(200);
    await conv.gw.waitForLog(`user ${MALLORY} is not in conversation.allow_from of route 'alerts'`, 20_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(messages().length).toBe(before);
  });

  it('hands a reply to a message the gateway never sent to its own route', async () => {
    const before = messages().length;
    await reply(ALICE, 'om_0000000000000000000000000000unknown', 'hello bot');
    await conv.gw.waitForLog('via log', 20_000);
    expect(messages().length).toBe(before);
  });
});
