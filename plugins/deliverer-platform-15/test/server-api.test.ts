import type { Deliverer } from '@hookwise/core';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import plugin, { serverApiPlatform, tempGuid, type ServerApiOptions } from '@hookwise/plugin-deliverer-platform-15';

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

function setup(overrides: Partial<ServerApiOptions> = {}) {
  const test = createTestPluginContext();
  const options: ServerApiOptions = { api_base: server.url, password: PASSWORD, home_channel: CHAT, timeout_seconds: 5, ...overrides };
  return { ...test, deliverer: serverApiPlatform.create(options, test.ctx) as Deliverer };
}

describe('platform_15 (BlueBubbles)', () => {
  it('contributes platform_15', () => {
    expect(plugin.contributes).toEqual([serverApiPlatform]);
  });

  it('posts {chatGuid, tempGuid, message} to /api/v1/message/text with the password in the query', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage('Build passed', { chat_id: 'iMessage;+;chat123' }), deliverOptions());
    const [req] = server.requests;
    expect([req.method, req.path, Object.fromEntries(req.query)]).toEqual(['POST', '/api/v1/message/text', { password: PASSWORD }]);
    expect(req.json).toEqual({ chatGuid: 'iMessage;+;chat123', tempGuid: tempGuid('delivery-1', 0), message: 'Build passed' });
    expect(receipt).toEqual({ target: 'iMessage;+;chat123', ids: ['guid-1'] });
  });

  it('falls back to home_channel and sends the configured method', async () => {
    const { deliverer } = setup({ method: 'private-api' });
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests[0].json).toEqual({ chatGuid: CHAT, tempGuid: tempGuid('delivery-1', 0), message: 'hi', method: 'private-api' });
  });

  it('splits long answers, with one stable tempGuid per part', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('word '.repeat(4500)), deliverOptions());
    const bodies = server.requests.map((r) => r.json as { tempGuid: string; message: string });
    expect(bodies.map((b) => b.tempGuid)).toEqual([0, 1, 2].map((i) => tempGuid('delivery-1', i)));
    for (const b of bodies) expect(b.message.length).toBeLessThanOrEqual(10000);
    expect(tempGuid('delivery-1', 1)).toBe(tempGuid('delivery-1', 1));
  });

  it('does not retry a refused duplicate ("already queued" for the same tempGuid)', async () => {
    const { deliverer } = setup();
    server.queue({ status: 400, json: { status: 400, message: "You've made a bad request!", error: { type: 'Validation Error', message: `Message is already queued to be sent! (Temp GUID: ${tempGuid('delivery-1', 0)})` } } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.retryable, err.message.includes('already queued')]).toEqual([false, true]);
  });

  it('waits out a 429 and sends again', async () => {
    const { deliverer } = setup();
    server.queue({ status: 429, headers: { 'retry-after': '1' }, json: { status: 429, message: 'Too many requests' } });
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests).toHaveLength(2);
  });

  it('retries a server/iMessage error (500)', async () => {
    const { deliverer } = setup();
    server.queue({ status: 500, json: { status: 500, message: 'iMessage has encountered an error', error: { type: 'iMessage Error', message: 'Failed to send' } } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect(err.retryable).toBe(true);
  });

  it('does not retry a wrong password and keeps it out of URLs, errors and logs', async () => {
    const { deliverer, logs, redacted } = setup();
    server.queue({ status: 401, json: { status: 401, message: 'You are not authorized to access this resource', error: { type: 'Authentication Error', message: 'Unauthorized' } } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(err.message).toContain('/api/v1/message/text');
    const output = err.message + logs.join('\n');
    expect(output).not.toContain(PASSWORD);
    expect(output).not.toContain(encodeURIComponent(PASSWORD));
    expect(redacted).toEqual(expect.arrayContaining([PASSWORD, encodeURIComponent(PASSWORD)]));
  });

  it('start() pings the server with the password', async () => {
    const { deliverer } = setup();
    await deliverer.start!();
    expect(server.requests.map((r) => [r.method, r.path, r.query.get('password')])).toEqual([['GET', '/api/v1/ping', PASSWORD]]);
  });
});
