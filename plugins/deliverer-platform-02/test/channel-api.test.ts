import type { Deliverer } from '@hookwise/core';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import plugin, { channelApiPlatform, type ChannelApiOptions } from '@hookwise/plugin-deliverer-platform-02';

const TOKEN = 'MTA5ODc2NTQzMjEwOTg3NjU0.GhIjKl.abcdefghijklmnopqrstuvwxyz012345';
const HOOK_TOKEN = 'w3bh00k-t0ken-ABCDEFGHIJKLMNOPQRSTUVWXYZ';

let server: RecordingServer;
beforeEach(async () => {
  let next = 100;
  server = await startRecordingServer(() => ({ status: 200, json: { id: String(next++), channel_id: '555', content: 'x' } }));
});
afterEach(() => server.close());

function setup(overrides: Partial<ChannelApiOptions> = {}) {
  const test = createTestPluginContext();
  const options: ChannelApiOptions = { api_base: server.url, token: TOKEN, home_channel: '555', timeout_seconds: 5, ...overrides };
  return { ...test, deliverer: channelApiPlatform.create(options, test.ctx) as Deliverer };
}

describe('platform_02 (Discord)', () => {
  it('contributes platform_02, which must be enabled', () => {
    expect(plugin.contributes).toEqual([channelApiPlatform]);
    expect(channelApiPlatform.requiresEnabled).toBe(true);
  });

  it('POSTs /api/v10/channels/{id}/messages with the bot token and no pings', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage('deploy @everyone done', { chat_id: '777' }), deliverOptions());
    const [req] = server.requests;
    expect([req.method, req.path]).toEqual(['POST', '/api/v10/channels/777/messages']);
    expect(req.headers.authorization).toBe(`Bot ${TOKEN}`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.json).toEqual({ content: 'deploy @everyone done', allowed_mentions: { parse: [] } });
    expect(receipt).toEqual({ target: '777', ids: ['100'] });
  });

  it('falls back to home_channel', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests[0].path).toBe('/api/v10/channels/555/messages');
  });

  it('posts to a channel webhook with ?wait=true and needs no target', async () => {
    const { deliverer } = setup({ token: undefined, home_channel: undefined, webhook_url: `${server.url}/api/webhooks/123/${HOOK_TOKEN}` });
    const receipt = await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    const [req] = server.requests;
    expect([req.method, req.url]).toEqual(['POST', `/api/webhooks/123/${HOOK_TOKEN}?wait=true`]);
    expect(req.headers.authorization).toBeUndefined();
    expect(req.json).toEqual({ content: 'hi', allowed_mentions: { parse: [] } });
    expect(receipt).toEqual({ target: 'platform_02', ids: ['100'] });
  });

  it('refuses a config with neither token nor webhook_url', () => {
    expect(() => setup({ token: undefined })).toThrow('set token (bot) or webhook_url');
  });

  it('splits answers at 2000 characters', async () => {
    const { deliverer } = setup();
    const text = Array.from({ length: 5 }, () => 'x'.repeat(900)).join('\n');
    await deliverer.deliver(deliveryMessage(text), deliverOptions());
    const parts = server.requests.map((r) => (r.json as { content: string }).content);
    expect(parts.length).toBe(3);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(2000);
    expect(parts.join('\n')).toBe(text);
  });

  it('honours retry_after of a 429 and sends again', async () => {
    const { deliverer } = setup();
    server.queue({ status: 429, headers: { 'retry-after': '1', 'x-ratelimit-scope': 'user' }, json: { message: 'You are being rate limited.', retry_after: 0.05, global: false } });
    const receipt = await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests).toHaveLength(2);
    expect(receipt.ids).toEqual(['100']);
  });

  it('does not retry a 401 and keeps the token out of the error and the log', async () => {
    const { deliverer, logs } = setup();
    server.queue({ status: 401, json: { message: '401: Unauthorized', code: 0 } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(server.requests).toHaveLength(1);
    expect(err.message + logs.join('\n')).not.toContain(TOKEN);
  });

  it('reports a missing channel permission as a bad target', async () => {
    const { deliverer } = setup();
    server.queue({ status: 403, json: { message: 'Missing Access', code: 50001 } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
  });

  it('treats a deleted webhook as a credentials problem and never shows the webhook token', async () => {
    const { deliverer, redacted } = setup({ token: undefined, webhook_url: `${server.url}/api/webhooks/123/${HOOK_TOKEN}` });
    server.queue({ status: 404, json: { message: 'Unknown Webhook', code: 10015 } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect(err.code).toBe('HW_E_DELIVERY_AUTH');
    expect(err.message).not.toContain(HOOK_TOKEN);
    expect(redacted).toContain(HOOK_TOKEN);
  });

  it('start() checks the bot token with GET /api/v10/users/@me', async () => {
    const { deliverer } = setup();
    server.queue({ status: 200, json: { id: '1', username: 'hookwise' } });
    await deliverer.start!();
    expect(server.requests.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([['GET', '/api/v10/users/@me', `Bot ${TOKEN}`]]);
  });
});
