// Wire format from the Matrix client-server API spec: PUT /_matrix/client/v3/rooms/{roomId}/send/{eventType}/{txnId}
// (https://spec.matrix.org/v1.11/client-server-api/#put_matrixclientv3roomsroomidsendeventtypetxnid: answers
// {"event_id": "$YUwRidLecu:example.com"}), the room directory (https://spec.matrix.org/v1.11/client-server-api/#get_matrixclientv3directoryroomroomalias:
// {"room_id": "!abnjk1jdasj7:capuchin.org", "servers": [...]}) and standard errors ({errcode, error, retry_after_ms}).
import type { Deliverer } from '@hookwise/core';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import plugin, { matrixPlatform, transactionId, type ClientServerOptions } from '@hookwise/plugin-deliverer-matrix';

const TOKEN = 'syt_aG9va3dpc2U_testAccessToken_0a1b2c';
const ROOM = '!OGEhHVWSdvArJzumhm:matrix.example.org';
// encodeURIComponent leaves "!" alone (a legal path character) and encodes ":", as matrix-js-sdk does.
const ROOM_PATH = '!OGEhHVWSdvArJzumhm%3Amatrix.example.org';

let server: RecordingServer;
beforeEach(async () => {
  // Like a homeserver: a transaction id seen before answers with the event it created the first time.
  const events = new Map<string, string>();
  server = await startRecordingServer((req) => {
    if (!events.has(req.path)) events.set(req.path, `$event${events.size + 1}`);
    return { status: 200, json: { event_id: events.get(req.path) } };
  });
});
afterEach(() => server.close());

function setup(overrides: Partial<ClientServerOptions> = {}) {
  const test = createTestPluginContext();
  const options: ClientServerOptions = { api_base: server.url, token: TOKEN, home_channel: ROOM, timeout_seconds: 5, ...overrides };
  return { ...test, deliverer: matrixPlatform.create(options, test.ctx) as Deliverer };
}

const sendPaths = () => server.requests.map((r) => r.path);
const longText = Array.from({ length: 200 }, (_, i) => `line ${i} ${'y'.repeat(60)}`).join('\n');

describe('matrix (Matrix)', () => {
  it('contributes matrix (alias platform_07), which must be enabled, with api_base (the homeserver) and token required', () => {
    expect(plugin.contributes).toEqual([matrixPlatform]);
    expect([matrixPlatform.id, matrixPlatform.aliases]).toEqual(['matrix', ['platform_07']]);
    expect(matrixPlatform.requiresEnabled).toBe(true);
    expect((matrixPlatform.optionsSchema as { required: string[] }).required).toEqual(['api_base', 'token']);
  });

  it('PUTs an m.text event with HTML rendered from markdown to the URL-encoded room id', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(
      deliveryMessage('**CI** failed: see [log](https://ci.example/1)', { chat_id: '!other:example.org' }),
      deliverOptions(),
    );
    const [req] = server.requests;
    const txn = transactionId({ route: 'test-route', deliveryId: 'delivery-1', destination: 'matrix', index: 0 });
    expect([req.method, req.path]).toEqual(['PUT', `/_matrix/client/v3/rooms/!other%3Aexample.org/send/m.room.message/${txn}`]);
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.json).toEqual({
      msgtype: 'm.text',
      body: '**CI** failed: see [log](https://ci.example/1)',
      format: 'org.matrix.custom.html',
      formatted_body: '<p><strong>CI</strong> failed: see <a href="https://ci.example/1">log</a></p>',
    });
    expect(receipt).toEqual({ target: '!other:example.org', ids: ['$event1'] });
  });

  it('sends to home_channel when the route gives no chat_id', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests[0].path).toMatch(new RegExp(`^/_matrix/client/v3/rooms/${ROOM_PATH}/send/m\\.room\\.message/hookwise\\.[0-9a-f]{32}\\.0$`));
  });

  it('splits long answers into 8000-character events with txn ids per chunk index', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage(longText), deliverOptions());
    const bodies = server.requests.map((r) => (r.json as { body: string }).body);
    expect(bodies.length).toBe(2);
    for (const b of bodies) expect(b.length).toBeLessThanOrEqual(8000);
    expect(bodies.join('\n')).toBe(longText);
    expect(sendPaths().map((p) => p.split('/').pop())).toEqual(
      [0, 1].map((index) => transactionId({ route: 'test-route', deliveryId: 'delivery-1', destination: 'matrix', index })),
    );
    expect(receipt.ids).toEqual(['$event1', '$event2']);
  });

  it('uses the same transaction ids when the same delivery is delivered again, so nothing is posted twice', async () => {
    const { deliverer } = setup();
    const first = await deliverer.deliver(deliveryMessage(longText), deliverOptions());
    const again = await deliverer.deliver(deliveryMessage(longText), deliverOptions(2));
    const paths = sendPaths();
    expect(paths.slice(2)).toEqual(paths.slice(0, 2));
    expect(again).toEqual(first);
    // Another delivery id, or the same id on another route, is another transaction.
    expect(transactionId({ route: 'test-route', deliveryId: 'delivery-2', index: 0 })).not.toBe(
      transactionId({ route: 'test-route', deliveryId: 'delivery-1', destination: 'matrix', index: 0 }),
    );
    expect(transactionId({ route: 'other', deliveryId: 'delivery-1', index: 0 })).not.toBe(
      transactionId({ route: 'test-route', deliveryId: 'delivery-1', destination: 'matrix', index: 0 }),
    );
  });

  it('a job retried after a failed second chunk sends only that chunk, under its original transaction id', async () => {
    const { deliverer } = setup();
    server.queue({ status: 200, json: { event_id: '$first' } }, { status: 502, body: 'Bad Gateway' });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage(longText), deliverOptions()));
    expect(err.retryable).toBe(true);
    await deliverer.deliver(deliveryMessage(longText), deliverOptions(2));
    const paths = sendPaths();
    expect(paths).toHaveLength(3);
    expect(paths[2]).toBe(paths[1]);
    expect(paths[2].endsWith('.1')).toBe(true);
  });

  it('retries M_LIMIT_EXCEEDED after retry_after_ms with the same transaction id', async () => {
    const { deliverer, logs } = setup();
    server.queue({ status: 429, json: { errcode: 'M_LIMIT_EXCEEDED', error: 'Too Many Requests', retry_after_ms: 200 } });
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1].path).toBe(server.requests[0].path);
    expect(logs.join('\n')).toContain('waiting 0.2s');
  });

  it('does not retry M_UNKNOWN_TOKEN (401) and never shows the token', async () => {
    const { deliverer, logs, redacted } = setup();
    server.queue({ status: 401, json: { errcode: 'M_UNKNOWN_TOKEN', error: 'Invalid access token passed.', soft_logout: false } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(err.message).toContain('M_UNKNOWN_TOKEN');
    expect(server.requests).toHaveLength(1);
    expect(err.message + logs.join('\n')).not.toContain(TOKEN);
    expect(redacted).toContain(TOKEN);
  });

  it('reports M_FORBIDDEN (not in the room) as a bad target', async () => {
    const { deliverer } = setup();
    server.queue({ status: 403, json: { errcode: 'M_FORBIDDEN', error: 'User @bot:matrix.example.org not in room' } });
    const forbidden = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([forbidden.code, forbidden.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
  });

  it('resolves a room alias through the room directory, then sends to the room id', async () => {
    const { deliverer } = setup();
    server.queue({ status: 200, json: { room_id: '!abnjk1jdasj7:capuchin.org', servers: ['capuchin.org', 'matrix.org'] } });
    const receipt = await deliverer.deliver(deliveryMessage('hi', { chat_id: '#monkeys:matrix.org' }), deliverOptions());
    expect(server.requests.map((r) => [r.method, r.path.replace(/\/hookwise\..*$/, '/<txn>')])).toEqual([
      ['GET', '/_matrix/client/v3/directory/room/%23monkeys%3Amatrix.org'],
      ['PUT', '/_matrix/client/v3/rooms/!abnjk1jdasj7%3Acapuchin.org/send/m.room.message/<txn>'],
    ]);
    expect(receipt.target).toBe('#monkeys:matrix.org');
  });

  it('reports an unknown alias (M_NOT_FOUND) as a bad target', async () => {
    const { deliverer } = setup();
    server.queue({ status: 404, json: { errcode: 'M_NOT_FOUND', error: 'Room alias #monkeys:matrix.org not found.' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: '#monkeys:matrix.org' }), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(server.requests).toHaveLength(1);
  });

  it.each(['..', '@bot:example.org', 'ops', '#ops', '! spaced:example.org'])('refuses room %j before sending', async (chatId) => {
    const { deliverer } = setup();
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: chatId }), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(server.requests).toHaveLength(0);
  });

  it('keeps a room id with / ? # inside its own path segment', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('hi', { chat_id: '!a/../../b?c#d:example.org' }), deliverOptions());
    expect(server.requests[0].path).toMatch(/^\/_matrix\/client\/v3\/rooms\/!a%2F\.\.%2F\.\.%2Fb%3Fc%23d%3Aexample\.org\/send\/m\.room\.message\//);
  });

  it('needs an event_id to count a part as sent', async () => {
    const { deliverer } = setup();
    server.queue({ status: 200, json: {} });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', false]);
    expect(err.message).toContain('without the event_id');
  });

  it('start() calls whoami with the access token', async () => {
    const { deliverer, logs } = setup();
    server.queue({ status: 200, json: { user_id: '@hookwise:matrix.example.org', device_id: 'ABCDEF', is_guest: false } });
    await deliverer.start!();
    expect(server.requests.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([['GET', '/_matrix/client/v3/account/whoami', `Bearer ${TOKEN}`]]);
    expect(logs.join('\n')).toContain('connected as @hookwise:matrix.example.org');
  });
});
