// Wire format from the BlueBubbles server's REST API docs (https://docs.bluebubbles.app/server/developer-guides/rest-api-and-webhooks:
// ?password= on every call; POST /api/v1/message/text {chatGuid, tempGuid, message, method} answered
// {status: 200, message: "Message sent!", data: {...message}}; GET /api/v1/ping answered {status: 200, message:
// "Ping received!", data: "pong"}; errors {status, message, error: {type, message}}).
import type { Deliverer } from '@hookwise/core';
import { VirtualClock, type HttpResponse } from '@hookwise/kit/platform';
import {
  createTestPluginContext,
  deliverOptions,
  deliveryMessage,
  rejectionOf,
  startRecordingServer,
  type RecordingServer,
  type ScriptedReply,
} from '@hookwise/testing';
import plugin, { checkServerResponse, blueBubblesPlatform, tempGuid, type ServerApiOptions } from '@hookwise/plugin-deliverer-bluebubbles';

const PASSWORD = 'bb-p@ss word/42';
const CHAT = 'iMessage;-;+15555550123';

let server: RecordingServer;
beforeEach(async () => {
  server = await startRecordingServer((req) =>
    req.path === '/api/v1/ping'
      ? { json: { status: 200, message: 'Ping received!', data: 'pong' } }
      : { json: { status: 200, message: 'Message sent!', data: { guid: `guid-${server.requests.length}` } } },
  );
});
afterEach(() => server.close());

/** The server's refusal of a tempGuid that is still in its send cache (HTTP 400, Validation Error). */
function alreadyQueued(guid: string): ScriptedReply {
  return {
    status: 400,
    json: {
      status: 400,
      message: "You've made a bad request!",
      error: { type: 'Validation Error', message: `Message is already queued to be sent! (Temp GUID: ${guid})` },
    },
  };
}

/**
 * Replaces the server with a stand-in for BlueBubbles's send path: a tempGuid stays in the send cache while
 * iMessage sends its message, and another request with that tempGuid is refused as already queued. iMessage
 * here takes until the test calls finish(); `sent` is what it sent.
 */
async function startSlowBlueBubbles() {
  const sending = new Set<string>();
  const sent: unknown[] = [];
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  await server.close();
  server = await startRecordingServer(async (req) => {
    const body = req.json as { tempGuid: string };
    if (sending.has(body.tempGuid)) return alreadyQueued(body.tempGuid);
    sending.add(body.tempGuid);
    sent.push(body);
    await finished;
    sending.delete(body.tempGuid);
    return { json: { status: 200, message: 'Message sent!', data: { guid: 'guid-late', tempGuid: body.tempGuid } } };
  });
  return { sent, finish };
}

function setup(overrides: Partial<ServerApiOptions> = {}) {
  const test = createTestPluginContext();
  const options: ServerApiOptions = { api_base: server.url, password: PASSWORD, home_channel: CHAT, timeout_seconds: 5, ...overrides };
  const deliverer: Deliverer = blueBubblesPlatform.createDeliverer(options, test.ctx, { clock: new VirtualClock() });
  return { ...test, deliverer };
}

describe('bluebubbles (BlueBubbles)', () => {
  it('contributes bluebubbles (alias platform_15)', () => {
    expect(plugin.contributes).toEqual([blueBubblesPlatform]);
    expect([blueBubblesPlatform.id, blueBubblesPlatform.aliases]).toEqual(['bluebubbles', ['platform_15']]);
  });

  // Before: the query string carries the password with "+" for its space, a form nothing scrubbed; a proxy or a
  // server that echoes the request line put it into the error text.
  it('keeps a password with spaces out of an answer that echoes the request URL', async () => {
    const { deliverer, logs } = setup();
    server.queue({ status: 404, body: `Cannot POST /api/v1/message/text?password=${new URLSearchParams({ p: PASSWORD }).toString().slice(2)}` });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    const output = err.message + logs.join('\n');
    expect(output).toContain('password=[REDACTED]');
    for (const form of [PASSWORD, 'p%40ss+word', encodeURIComponent(PASSWORD), JSON.stringify(PASSWORD).slice(1, -1)]) expect(output).not.toContain(form);
  });

  it.each(['..', 'iMessage;-;', 'chat123', 'iMessage;-;+1555/../x', 'iMessage;-;a b', 'Telegram;-;1'])(
    'refuses chat guid %j before sending',
    async (chatId) => {
      const { deliverer } = setup();
      const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: chatId }), deliverOptions()));
      expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
      expect(server.requests).toHaveLength(0);
    },
  );

  it('needs status 200 with the sent message to count a part as sent', async () => {
    const { deliverer } = setup();
    server.queue({ status: 200, json: { status: 200, message: 'Success' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', false]);
  });

  it('posts {chatGuid, tempGuid, message} to /api/v1/message/text with the password in the query', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage('Build passed', { chat_id: 'iMessage;+;chat123' }), deliverOptions());
    const [req] = server.requests;
    expect([req.method, req.path, Object.fromEntries(req.query)]).toEqual(['POST', '/api/v1/message/text', { password: PASSWORD }]);
    expect(req.json).toEqual({
      chatGuid: 'iMessage;+;chat123',
      tempGuid: tempGuid({ route: 'test-route', deliveryId: 'delivery-1', destination: 'bluebubbles', index: 0 }),
      message: 'Build passed',
    });
    expect(receipt).toEqual({ target: 'iMessage;+;chat123', ids: ['guid-1'] });
  });

  it('falls back to home_channel and sends the configured method', async () => {
    const { deliverer } = setup({ method: 'private-api' });
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests[0].json).toEqual({
      chatGuid: CHAT,
      tempGuid: tempGuid({ route: 'test-route', deliveryId: 'delivery-1', destination: 'bluebubbles', index: 0 }),
      message: 'hi',
      method: 'private-api',
    });
  });

  it('splits long answers, with one stable tempGuid per part', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('word '.repeat(4500)), deliverOptions());
    const bodies = server.requests.map((r) => r.json as { tempGuid: string; message: string });
    expect(bodies.map((b) => b.tempGuid)).toEqual(
      [0, 1, 2].map((i) => tempGuid({ route: 'test-route', deliveryId: 'delivery-1', destination: 'bluebubbles', index: i })),
    );
    for (const b of bodies) expect(b.message.length).toBeLessThanOrEqual(10000);
    expect(tempGuid({ route: 'test-route', deliveryId: 'delivery-1', destination: 'bluebubbles', index: 1 })).toBe(
      tempGuid({ route: 'test-route', deliveryId: 'delivery-1', destination: 'bluebubbles', index: 1 }),
    );
  });

  it('counts "already queued" for its own tempGuid as delivered and notes it in the receipt', async () => {
    const { deliverer, logs } = setup();
    const guid = tempGuid({ route: 'test-route', deliveryId: 'delivery-1', destination: 'bluebubbles', index: 0 });
    server.queue(alreadyQueued(guid));
    const receipt = await deliverer.deliver(deliveryMessage('hi'), deliverOptions(2));
    expect(receipt).toEqual({
      target: CHAT,
      ids: [],
      alreadyDelivered: [{ index: 0, message: `status 400: You've made a bad request!: Message is already queued to be sent! (Temp GUID: ${guid})` }],
    });
    expect(server.requests.map((r) => r.json)).toEqual([{ chatGuid: CHAT, tempGuid: guid, message: 'hi' }]);
    expect(logs.some((l) => l.includes('part 1/1 of delivery-1') && l.includes('already delivered'))).toBe(true);
  });

  it('a retry after a timeout finds its tempGuid still queued: the delivery succeeds and iMessage sends one message', async () => {
    const bb = await startSlowBlueBubbles();
    const { deliverer } = setup({ timeout_seconds: 0.5 });
    const msg = deliveryMessage('Build passed');
    const first = await rejectionOf(deliverer.deliver(msg, deliverOptions(1)));
    expect([first.code, first.retryable, first.message]).toEqual(['HW_E_DELIVERY', true, expect.stringContaining('timed out after 0.5s')]);

    const guid = tempGuid({ route: 'test-route', deliveryId: 'delivery-1', destination: 'bluebubbles', index: 0 });
    const receipt = await deliverer.deliver(msg, deliverOptions(2));
    expect(receipt).toEqual({
      target: CHAT,
      ids: [],
      alreadyDelivered: [{ index: 0, message: `status 400: You've made a bad request!: Message is already queued to be sent! (Temp GUID: ${guid})` }],
    });

    bb.finish();
    const body = { chatGuid: CHAT, tempGuid: guid, message: 'Build passed' };
    const sendRequest = ['POST', '/api/v1/message/text', { password: PASSWORD }, body];
    expect(server.requests.map((r) => [r.method, r.path, Object.fromEntries(r.query), r.json])).toEqual([sendRequest, sendRequest]);
    expect(bb.sent).toEqual([body]);
  });

  it('reads "already queued" by status and wording only; other refusals keep their kind', () => {
    const answer = (status: number, json: unknown): HttpResponse => ({ status, headers: new Headers(), text: JSON.stringify(json), json });
    const verdict = (status: number, error: unknown) => checkServerResponse(answer(status, { status, message: 'x', error }))?.kind;
    expect(verdict(400, { type: 'Validation Error', message: 'Message is already queued to be sent! (Temp GUID: g)' })).toBe('already_delivered');
    expect(verdict(409, 'Message has already been sent')).toBe('already_delivered');
    expect(verdict(400, { type: 'Validation Error', message: "A 'tempGuid' is required when sending via AppleScript" })).toBe('rejected');
    expect(verdict(500, { type: 'iMessage Error', message: 'already queued' })).toBe('unavailable');
  });

  it('waits out a 429 and sends again', async () => {
    const { deliverer } = setup();
    server.queue({ status: 429, headers: { 'retry-after': '1' }, json: { status: 429, message: 'Too many requests' } });
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests).toHaveLength(2);
  });

  it('retries a server/iMessage error (500)', async () => {
    const { deliverer } = setup();
    server.queue({
      status: 500,
      json: { status: 500, message: 'iMessage has encountered an error', error: { type: 'iMessage Error', message: 'Failed to send' } },
    });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect(err.retryable).toBe(true);
  });

  it('does not retry a wrong password and keeps it out of URLs, errors and logs', async () => {
    const { deliverer, logs, redacted } = setup();
    server.queue({
      status: 401,
      json: { status: 401, message: 'You are not authorized to access this resource', error: { type: 'Authentication Error', message: 'Unauthorized' } },
    });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(err.message).toContain('/api/v1/message/text');
    const output = err.message + logs.join('\n');
    expect(output).not.toContain(PASSWORD);
    expect(output).not.toContain(encodeURIComponent(PASSWORD));
    expect(redacted).toEqual(expect.arrayContaining([PASSWORD, encodeURIComponent(PASSWORD), new URLSearchParams({ p: PASSWORD }).toString().slice(2)]));
  });

  it('start() pings the server with the password', async () => {
    const { deliverer } = setup();
    await deliverer.start!();
    expect(server.requests.map((r) => [r.method, r.path, r.query.get('password')])).toEqual([['GET', '/api/v1/ping', PASSWORD]]);
  });
});
