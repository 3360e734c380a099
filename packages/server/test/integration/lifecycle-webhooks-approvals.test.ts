// `notify:` targets may subscribe to the lifecycle events of issue 31: approval_requested, approved, denied and
// conversation_continued arrive at a real HTTP receiver, signed in the Standard Webhooks format (checked with the
// official `standardwebhooks` library), from a gateway on a SQLite file. The conversation is continued by a reply
// as Telegram posts it (an Update whose message has reply_to_message, core.telegram.org/bots/api#message) to an
// answer the gateway sent through a Bot API stand-in; the approvals are decided as the dashboard decides them.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { postSigned, startRecordingServer, startTestGateway, waitFor, type RecordingServer, type TestGateway } from '@hookwise/testing';

jest.setTimeout(60_000);

const SECRET = 'notify-approvals-secret-0123456789';
const TG_SECRET = 'tg_notify_secret-0123456789';
const NOTIFY_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const CHAT = 4242;
const ALICE = 3333333;

interface Message {
  type: string;
  data: Record<string, unknown>;
}

let api: RecordingServer;
let receiver: Server;
let gw: TestGateway;
const received: Message[] = [];
let nextMessageId = 800;

/** What a timed-out wait shows: the types the receiver got, and the gateway's log. */
const showReceived = () => `received: ${JSON.stringify(received.map((m) => m.type))}\nlog:\n${gw?.logText()}`;

async function sendSigned(route: string, deliveryId: string, payload: Record<string, unknown>): Promise<void> {
  expect((await postSigned(gw, route, SECRET, payload, deliveryId)).status).toBe(202);
}

beforeAll(async () => {
  const verifier = new Webhook(NOTIFY_SECRET);
  receiver = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // Throws (and the test fails on a missing message) unless the signature verifies.
      received.push(verifier.verify(Buffer.concat(chunks).toString(), req.headers as Record<string, string>) as Message);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const notifyUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/hookwise`;
  api = await startRecordingServer((req) =>
    req.path.endsWith('/getMe')
      ? { json: { ok: true, result: { id: 123456, is_bot: true, username: 'hw_bot' } } }
      : { json: { ok: true, result: { message_id: nextMessageId++, chat: { id: CHAT } } } },
  );
  gw = await startTestGateway({
    config: {
      notify: [{ url: notifyUrl, secret: NOTIFY_SECRET, events: ['approval_requested', 'approved', 'denied', 'conversation_continued'] }],
      platforms: {
        telegram: { enabled: true, token: '123456:notify-test-token', api_base: api.url },
        webhook: {
          enabled: true,
          extra: {
            routes: {
              alerts: {
                secret: SECRET,
                prompt: 'Alert: {title}',
                deliver: 'telegram',
                deliver_extra: { chat_id: String(CHAT) },
                conversation: { enabled: true, max_turns: 5, ttl_hours: 1, allow_from: [ALICE] },
              },
              held: { secret: SECRET, prompt: 'Ship {name}?', deliver: 'log', approval: { approvers: ['telegram:alice'] } },
              tg: { source: 'telegram', secret: TG_SECRET, prompt: 'Inbound: {message.text}', deliver: 'log', allow_from: [ALICE] },
            },
          },
        },
      },
      agent: { runner: 'echo' },
      store: { backend: 'sqlite' },
      admin: { enabled: true },
    },
    pollMs: 20,
  });
});
afterAll(async () => {
  await gw?.stop();
  await api?.close();
  receiver?.close();
});

const ofType = (type: string) => received.filter((m) => m.type === `hookwise.${type}`);

describe('notify: the lifecycle events of approvals and conversations', () => {
  it('posts approval_requested, then approved or denied, for answers held for an approver', async () => {
    await sendSigned('held', 'nt-1', { name: 'one' });
    await sendSigned('held', 'nt-2', { name: 'two' });
    await waitFor('two approval requests', () => ofType('approval_requested').length === 2, { detail: showReceived });
    const requests = ofType('approval_requested');
    expect(requests.map((m) => m.data.deliveryId).sort()).toEqual(['nt-1', 'nt-2']);
    expect(requests[0].data).toMatchObject({ route: 'held', approvers: ['telegram:alice'], jobId: expect.any(String), expiresAt: expect.any(Number) });
    const jobOf = (deliveryId: string) => String(requests.find((m) => m.data.deliveryId === deliveryId)!.data.jobId);

    expect((await gw.gateway.approvals.decide(jobOf('nt-1'), 'approve', { platform: 'dashboard', id: 'operator' })).result).toBe('approved');
    expect((await gw.gateway.approvals.decide(jobOf('nt-2'), 'deny', { platform: 'dashboard', id: 'operator' })).result).toBe('denied');
    await waitFor('the decisions', () => ofType('approved').length === 1 && ofType('denied').length === 1, { detail: showReceived });
    expect(ofType('approved')[0].data).toEqual({ jobId: jobOf('nt-1'), route: 'held', deliveryId: 'nt-1', by: 'dashboard' });
    expect(ofType('denied')[0].data).toEqual({ jobId: jobOf('nt-2'), route: 'held', deliveryId: 'nt-2', by: 'dashboard' });
  });

  it('posts conversation_continued when a Telegram reply continues a delivered answer', async () => {
    await sendSigned('alerts', 'nt-3', { title: 'disk full' });
    // Done: the answer was sent and its conversation record written (before the job completes).
    const statusOf = async () => ((await (await fetch(`${gw.url}/api/deliveries/nt-3`)).json()) as { delivery?: { status: string } }).delivery?.status;
    for (const giveUpAt = Date.now() + 20_000; (await statusOf()) !== 'done';) {
      if (Date.now() > giveUpAt) throw new Error(`the first answer was not delivered\nlog:\n${gw.logText()}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(api.requests.filter((r) => r.path.endsWith('/sendMessage'))).toHaveLength(1);
    const first = 800; // the stand-in's message id of the first answer
    const update = {
      update_id: 515151,
      message: {
        message_id: 41,
        date: 1441645532,
        chat: { id: CHAT, type: 'private' },
        from: { id: ALICE, is_bot: false, first_name: 'Alice' },
        text: 'which disk?',
        reply_to_message: { message_id: first, date: 1441645000, chat: { id: CHAT, type: 'private' }, text: 'Alert: disk full' },
      },
    };
    const reply = await gw.post('tg', JSON.stringify(update), { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': TG_SECRET });
    expect(reply.body).toMatchObject({ status: 'accepted', route: 'alerts', turn: 2 });
    await waitFor('conversation_continued', () => ofType('conversation_continued').length === 1, { detail: showReceived });
    expect(ofType('conversation_continued')[0].data).toMatchObject({
      route: 'alerts',
      inboundRoute: 'tg',
      deliveryId: 'tg:515151',
      conversation: expect.any(String),
      turn: 2,
      platform: 'telegram',
      from: `Telegram user ${ALICE} (Alice)`,
    });
    // Only the four chosen types were posted.
    expect(new Set(received.map((m) => m.type))).toEqual(
      new Set(['hookwise.approval_requested', 'hookwise.approved', 'hookwise.denied', 'hookwise.conversation_continued']),
    );
  });
});
