import type { Deliverer } from '@hookwise/core';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import plugin, { workspaceApiPlatform, type WorkspaceApiOptions } from '@hookwise/plugin-deliverer-platform-03';

const TOKEN = 'xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx';
const HOOK_PATH = '/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX';

let server: RecordingServer;
beforeEach(async () => {
  let ts = 1;
  server = await startRecordingServer((req) => (req.path === '/api/chat.postMessage' ? { json: { ok: true, channel: 'C1', ts: `1700000000.00000${ts++}` } } : { body: 'ok' }));
});
afterEach(() => server.close());

function setup(overrides: Partial<WorkspaceApiOptions> = {}) {
  const test = createTestPluginContext();
  const options: WorkspaceApiOptions = { api_base: server.url, token: TOKEN, home_channel: 'C0HOME', timeout_seconds: 5, ...overrides };
  return { ...test, deliverer: workspaceApiPlatform.create(options, test.ctx) as Deliverer };
}

describe('platform_03 (Slack)', () => {
  it('contributes platform_03, which must be enabled', () => {
    expect(plugin.contributes).toEqual([workspaceApiPlatform]);
    expect(workspaceApiPlatform.requiresEnabled).toBe(true);
  });

  it('calls chat.postMessage with a bearer token and {channel, text}', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage('*done*', { chat_id: 'C123' }), deliverOptions());
    const [req] = server.requests;
    expect([req.method, req.path]).toEqual(['POST', '/api/chat.postMessage']);
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(req.json).toEqual({ channel: 'C123', text: '*done*' });
    expect(receipt).toEqual({ target: 'C123', ids: ['1700000000.000001'] });
  });

  it('falls back to home_channel', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests[0].json).toEqual({ channel: 'C0HOME', text: 'hi' });
  });

  it('posts {text} to an incoming webhook, which needs no channel', async () => {
    const { deliverer } = setup({ token: undefined, home_channel: undefined, webhook_url: `${server.url}${HOOK_PATH}` });
    const receipt = await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    const [req] = server.requests;
    expect([req.method, req.path, req.headers.authorization]).toEqual(['POST', HOOK_PATH, undefined]);
    expect(req.json).toEqual({ text: 'hi' });
    expect(receipt).toEqual({ target: 'platform_03', ids: [] });
  });

  it('splits answers at 4000 characters', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('word '.repeat(1700)), deliverOptions());
    const parts = server.requests.map((r) => (r.json as { text: string }).text);
    expect(parts.length).toBe(3);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(4000);
  });

  it('treats ok:false in an HTTP 200 as an error: channel_not_found is a bad target', async () => {
    const { deliverer } = setup();
    server.queue({ json: { ok: false, error: 'channel_not_found' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(err.message).toContain('channel_not_found');
  });

  it('does not retry invalid_auth and never shows the token', async () => {
    const { deliverer, logs } = setup();
    server.queue({ json: { ok: false, error: 'invalid_auth' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(server.requests).toHaveLength(1);
    expect(err.message + logs.join('\n')).not.toContain(TOKEN);
  });

  it('waits the Retry-After of a 429 and sends again', async () => {
    const { deliverer } = setup();
    server.queue({ status: 429, headers: { 'retry-after': '1' }, json: { ok: false, error: 'ratelimited' } });
    const receipt = await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests).toHaveLength(2);
    expect(receipt.ids).toEqual(['1700000000.000001']);
  });

  it('maps webhook error texts and keeps the webhook path secret', async () => {
    const { deliverer } = setup({ token: undefined, webhook_url: `${server.url}${HOOK_PATH}` });
    server.queue({ status: 403, body: 'invalid_token' });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(err.message).not.toContain('XXXXXXXXXXXXXXXX');
  });

  it('start() calls auth.test and fails for good on a revoked token', async () => {
    const { deliverer } = setup();
    server.queue({ json: { ok: false, error: 'token_revoked' } });
    const err = await rejectionOf(deliverer.start!());
    expect(server.requests.map((r) => [r.method, r.path])).toEqual([['POST', '/api/auth.test']]);
    expect(err.code).toBe('HW_E_DELIVERY_AUTH');
  });
});
