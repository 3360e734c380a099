// Conversations on Matrix (issue 31), end to end over real HTTP against a client-server API stand-in: a route's
// answer is sent with PUT /_matrix/client/v3/rooms/{roomId}/send/m.room.message/{txnId} (answered with the spec's
// example {event_id}); the homeserver then calls the gateway's application service with a transaction (PUT
// .../_matrix/app/v1/transactions/{txnId}, Bearer hs_token; the spec's example, documented-payloads.ts) holding a
// person's rich reply to that event (the spec's `m.relates_to.m.in_reply_to` example) or a thread message under it
// (the spec's `rel_type: m.thread` example); the ORIGINAL route runs again, its agent (a command that echoes its
// prompt) sees the first answer and the reply, and its answer is sent as a reply to the person's own event (in the
// thread, when they wrote in one).
// A stranger, an edit (`m.replace`) and the gateway's own answer pushed back to it run nothing of the conversation.
import type { RecordingServer } from '@hookwise/testing';
import { conversationHarness } from './conversation-harness';
import { matrixSent, matrixThreadTransaction, matrixTransaction } from './documented-payloads';

jest.setTimeout(60_000);

const SECRET = 'conversation-matrix-alert-secret-0123456789';
const HS_TOKEN = 'hs-token-conversation-0123456789abcdef';
const ROOM = '!jEsUZKDJdhlrceRyVU:example.org';
const ALLOWED = '@alice:example.org';
const BOT = '@hookwise:example.org';

const conv = conversationHarness('matrix', SECRET);
let api: RecordingServer;
let sentN = 0;
let txnN = 0;
let eventN = 0;

const sends = () => api.requests.filter((r) => r.method === 'PUT' && r.path.includes('/send/m.room.message/'));
const delivered = () => conv.delivered('alerts');

/** PUT a transaction as the homeserver does (Bearer hs_token). */
async function put(payload: string) {
  txnN += 1;
  const res = await fetch(`${conv.gw.url}/webhooks/matrix-in/_matrix/app/v1/transactions/${process.pid}-${txnN}`, {
    method: 'PUT',
    body: payload,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${HS_TOKEN}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The spec's rich reply (in its transaction example, documented-payloads.ts): `sender` answers `inReplyTo`. */
async function transaction(sender: string, inReplyTo: string, body: string, relatesTo?: Record<string, unknown>, eventId?: string) {
  eventN += 1;
  return put(matrixTransaction({ room: ROOM, sender, eventId: eventId ?? `$reply${eventN}:example.org`, inReplyTo, body, relatesTo }));
}

beforeAll(async () => {
  api = await conv.startApi((req) =>
    req.path === '/_matrix/client/v3/account/whoami' ? { json: { user_id: BOT } } : { json: matrixSent(`$answer${++sentN}:example.org`) },
  );
  await conv.start({
    platforms: {
      matrix: { enabled: true, token: 'syt_conversation_test_token', api_base: api.url },
      webhook: {
        enabled: true,
        extra: {
          routes: {
            alerts: conv.answeredRoute('matrix', ROOM, { allow_from: [ALLOWED] }),
            'matrix-in': { source: 'matrix', secret: HS_TOKEN, prompt: 'Inbound Matrix transaction', deliver: 'log', allow_from: ['*'] },
          },
        },
      },
    },
    agent: conv.agent,
    retry: { max_attempts: 1 },
    store: { backend: 'memory' },
  });
});

it("continues a conversation from a rich reply and a thread message, answering with m.relates_to to the person's event in the same room", async () => {
  const first = await conv.alert('alerts', 'disk full', 'matrix-alert-1');
  expect(first.status).toBe(202);
  await conv.waitFor('the first answer', () => delivered() === 1);
  expect(sends()[0].path.startsWith(`/_matrix/client/v3/rooms/${encodeURIComponent(ROOM)}/send/m.room.message/`)).toBe(true);
  expect(sends()[0].json).toMatchObject({ msgtype: 'm.text', body: 'ECHO[Alert: disk full]' });
  expect((sends()[0].json as Record<string, unknown>)['m.relates_to']).toBeUndefined();

  // A rich reply, with the quoted fallback Matrix clients put before the text.
  const reply = await transaction(ALLOWED, '$answer1:example.org', '> <@hookwise:example.org> ECHO[Alert: disk full]\n\nwhich disk?');
  expect(reply.status).toBe(200);
  await conv.waitFor('the answer to the reply', () => delivered() === 2);
  const second = sends()[1];
  expect(second.path.startsWith(`/_matrix/client/v3/rooms/${encodeURIComponent(ROOM)}/send/`)).toBe(true);
  const secondBody = second.json as { body: string; 'm.relates_to'?: unknown };
  // A rich reply to the person's event (the one they wrote), not to the gateway's answer they replied to.
  expect(secondBody['m.relates_to']).toEqual({ 'm.in_reply_to': { event_id: '$reply1:example.org' } });
  expect(secondBody.body).toContain('Alert: disk full');
  expect(secondBody.body).toContain('ECHO[Alert: disk full]');
  expect(secondBody.body).toContain('which disk?');
  expect(secondBody.body).toContain(`Matrix user ${ALLOWED}`);
  expect(secondBody.body).not.toContain('> <@hookwise:example.org>');
  expect(conv.gw.logText()).toMatch(/continues conversation \S+ as turn 2/);

  // The gateway's own answer comes back in a transaction too (a homeserver pushes its application service every
  // event of its rooms): a rich reply to the first answer, sent by the bot, is no person's turn.
  const own = await transaction(BOT, '$answer1:example.org', (sends()[1].json as { body: string }).body, undefined, '$answer2:example.org');
  expect(own.status).toBe(200);
  await conv.waitFor('the own answer ignored', () => conv.gw.logText().includes("it is the gateway's own answer"));

  // A thread under the second answer (the spec's thread example, with its fallback for unthreaded clients): its root
  // is that answer, so it continues the same conversation (turn 3).
  eventN += 1;
  const threaded = await put(
    matrixThreadTransaction({
      room: ROOM,
      sender: ALLOWED,
      eventId: `$reply${eventN}:example.org`,
      root: '$answer2:example.org',
      inReplyTo: '$answer2:example.org',
      body: 'and now?',
    }),
  );
  expect(threaded.status).toBe(200);
  await conv.waitFor('the answer in the thread', () => delivered() === 3);
  const third = sends()[2].json as { body: string; 'm.relates_to'?: unknown };
  // The answer goes into the same thread (m.thread on its root, with the spec's fallback for unthreaded clients),
  // quoting the person's thread message.
  expect(third['m.relates_to']).toEqual({
    rel_type: 'm.thread',
    event_id: '$answer2:example.org',
    is_falling_back: true,
    'm.in_reply_to': { event_id: `$reply${eventN}:example.org` },
  });
  expect(third.body).toContain('which disk?');
  expect(third.body).toContain('and now?');
  expect(conv.gw.logText()).toMatch(/continues conversation \S+ as turn 3/);

  // A stranger's reply, and an edit of a message (a relation that answers nothing), continue nothing.
  await transaction('@mallory:example.org', '$answer1:example.org', 'me too');
  await conv.waitFor('the stranger ignored', () => conv.gw.logText().includes('user @mallory:example.org is not in conversation.allow_from'));
  await transaction(ALLOWED, '$answer1:example.org', '* edited', { rel_type: 'm.replace', event_id: '$answer1:example.org' });
  await new Promise((r) => setTimeout(r, 500));
  expect(sends().length).toBe(3);
  expect(delivered()).toBe(3);
});
