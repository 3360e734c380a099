// Wire format from the Home Assistant REST API docs (https://developers.home-assistant.io/docs/api/rest/:
// POST /api/services/<domain>/<service> with a bearer token, answered with the list of changed states;
// GET /api/ answers {"message": "API running."}; errors as "401: Unauthorized" text).
import type { Deliverer } from '@hookwise/core';
import { deliveryKey } from '@hookwise/kit/platform';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import plugin, { homeAssistantPlatform, type RestApiOptions } from '@hookwise/plugin-deliverer-homeassistant';

const TOKEN = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJob29rd2lzZSJ9.c2lnbmF0dXJl';

let server: RecordingServer;
beforeEach(async () => {
  // HA answers a service call with the list of states it changed (empty for notifications).
  server = await startRecordingServer(() => ({ status: 200, json: [] }));
});
afterEach(() => server.close());

function setup(overrides: Partial<RestApiOptions> = {}) {
  const test = createTestPluginContext();
  const options: RestApiOptions = { api_base: server.url, token: TOKEN, timeout_seconds: 5, ...overrides };
  return { ...test, deliverer: homeAssistantPlatform.create(options, test.ctx) as Deliverer };
}

const notificationId = (index: number) =>
  `hookwise_${deliveryKey({ route: 'test-route', deliveryId: 'delivery-1', destination: 'homeassistant', index }, '_')}`;

describe('homeassistant (Home Assistant)', () => {
  it('contributes homeassistant (alias platform_09), which must be enabled; home_channel is optional, api_base and token required', () => {
    expect(plugin.contributes).toEqual([homeAssistantPlatform]);
    expect([homeAssistantPlatform.id, homeAssistantPlatform.aliases]).toEqual(['homeassistant', ['platform_09']]);
    expect(homeAssistantPlatform.requiresEnabled).toBe(true);
    const schema = homeAssistantPlatform.optionsSchema as { required: string[]; properties: Record<string, { default?: unknown }> };
    expect(schema.required).toEqual(['api_base', 'token']);
    expect(schema.properties.title.default).toBe('Hookwise: {route}');
  });

  it('without chat_id or home_channel creates a persistent notification with a bearer token', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage('**Backup** finished'), deliverOptions());
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect([req.method, req.path]).toEqual(['POST', '/api/services/persistent_notification/create']);
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.json).toEqual({ message: '**Backup** finished', title: 'Hookwise: test-route', notification_id: notificationId(0) });
    expect(receipt).toEqual({ target: 'homeassistant', ids: [] });
  });

  it('with chat_id notify.<service> calls that notify service with message and title', async () => {
    const { deliverer } = setup({ title: '{event} on {route} ({delivery_id})' });
    await deliverer.deliver(deliveryMessage('Door open', { chat_id: 'notify.mobile_app_pixel_7' }), deliverOptions());
    const [req] = server.requests;
    expect([req.method, req.path]).toEqual(['POST', '/api/services/notify/mobile_app_pixel_7']);
    expect(req.json).toEqual({ message: 'Door open', title: 'push on test-route (delivery-1)' });
  });

  it('falls back to home_channel when the route gives no chat_id, and deliver_extra.title overrides the title', async () => {
    const { deliverer } = setup({ home_channel: 'notify.family' });
    await deliverer.deliver(deliveryMessage('hi', { title: 'Garage' }), deliverOptions());
    expect([server.requests[0].path, server.requests[0].json]).toEqual(['/api/services/notify/family', { message: 'hi', title: 'Garage' }]);
  });

  it('refuses a target that is not a notify service, without calling Home Assistant', async () => {
    const { deliverer } = setup();
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: 'light.kitchen' }), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(err.message).toContain('notify.<service>');
    expect(server.requests).toHaveLength(0);
  });

  it.each(['notify.../../states', 'notify.x/y', 'notify.', '..', 'notify.a?b'])('never lets chat_id %j change the service path', async (chatId) => {
    const { deliverer } = setup();
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: chatId }), deliverOptions()));
    expect(err.code).toBe('HW_E_DELIVERY_TARGET');
    expect(server.requests).toHaveLength(0);
  });

  it('needs the list of changed states to count a notification as sent', async () => {
    const { deliverer } = setup();
    server.queue({ status: 200, body: '<html>login</html>', headers: { 'content-type': 'text/html' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', false]);
  });

  it('splits answers at 4000 characters into numbered notifications with stable ids', async () => {
    const { deliverer } = setup();
    const text = Array.from({ length: 100 }, (_, i) => `line ${i} ${'w'.repeat(70)}`).join('\n');
    await deliverer.deliver(deliveryMessage(text), deliverOptions());
    const bodies = server.requests.map((r) => r.json as { message: string; title: string; notification_id: string });
    expect(bodies.map((b) => [b.title, b.notification_id])).toEqual([
      ['Hookwise: test-route (1/2)', notificationId(0)],
      ['Hookwise: test-route (2/2)', notificationId(1)],
    ]);
    for (const b of bodies) expect(b.message.length).toBeLessThanOrEqual(4000);
    expect(bodies.map((b) => b.message).join('\n')).toBe(text);
  });

  it('retries a 429 after Retry-After (e.g. a reverse proxy in front of HA)', async () => {
    const { deliverer } = setup();
    server.queue({ status: 429, headers: { 'retry-after': '1' }, body: '429: Too Many Requests' });
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a 401 and never shows the token', async () => {
    const { deliverer, logs, redacted } = setup();
    server.queue({ status: 401, body: '401: Unauthorized' });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(err.message).toContain('401: Unauthorized');
    expect(server.requests).toHaveLength(1);
    expect(err.message + logs.join('\n')).not.toContain(TOKEN);
    expect(redacted).toContain(TOKEN);
  });

  it('reports an unknown notify service (HA answers 400) as a bad target', async () => {
    const { deliverer } = setup();
    server.queue({ status: 400, body: '400: Bad Request' });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: 'notify.nope' }), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
  });

  it('start() checks GET /api/', async () => {
    const { deliverer, logs } = setup();
    server.queue({ status: 200, json: { message: 'API running.' } });
    await deliverer.start!();
    expect(server.requests.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([['GET', '/api/', `Bearer ${TOKEN}`]]);
    expect(logs.join('\n')).toContain('API running.');
  });
});
