import type { Deliverer } from '@hookwise/core';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import plugin, { jsonRpcDaemonPlatform, type JsonRpcDaemonOptions } from '@hookwise/plugin-deliverer-platform-04';

const ACCOUNT = '+4915100000001';
const sent = (ts: number) => ({ json: { jsonrpc: '2.0', result: { timestamp: ts, results: [{ recipientAddress: { number: '+1' }, type: 'SUCCESS' }] }, id: 'x' } });

let server: RecordingServer;
beforeEach(async () => {
  let ts = 1700000000000;
  server = await startRecordingServer((req) => (req.path === '/api/v1/check' ? { status: 200, body: '' } : sent(ts++)));
});
afterEach(() => server.close());

function setup(overrides: Partial<JsonRpcDaemonOptions> = {}) {
  const test = createTestPluginContext();
  const options: JsonRpcDaemonOptions = { api_base: server.url, account: ACCOUNT, home_channel: '+4915100000002', timeout_seconds: 5, ...overrides };
  return { ...test, deliverer: jsonRpcDaemonPlatform.create(options, test.ctx) as Deliverer };
}

describe('platform_04 (Signal via signal-cli daemon)', () => {
  it('contributes platform_04, which must be enabled, and requires api_base', () => {
    expect(plugin.contributes).toEqual([jsonRpcDaemonPlatform]);
    expect(jsonRpcDaemonPlatform.requiresEnabled).toBe(true);
    expect((jsonRpcDaemonPlatform.optionsSchema as { required: string[] }).required).toEqual(['api_base', 'account']);
  });

  it('sends a JSON-RPC `send` with account and recipient to /api/v1/rpc', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage('hello', { chat_id: '+4915100000003' }, 'd-9'), deliverOptions());
    const [req] = server.requests;
    expect([req.method, req.path, req.headers['content-type']]).toEqual(['POST', '/api/v1/rpc', 'application/json']);
    expect(req.json).toEqual({ jsonrpc: '2.0', method: 'send', params: { account: ACCOUNT, recipient: ['+4915100000003'], message: 'hello' }, id: 'd-9-0' });
    expect(receipt).toEqual({ target: '+4915100000003', ids: ['1700000000000'] });
  });

  it('sends to a group with groupId for group: targets, and falls back to home_channel', async () => {
    const { deliverer } = setup({ home_channel: 'group:aGVsbG8gd29ybGQ=' });
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect((server.requests[0].json as { params: unknown }).params).toEqual({ account: ACCOUNT, groupId: 'aGVsbG8gd29ybGQ=', message: 'hi' });
  });

  it('splits answers at 2000 characters with one request id per chunk', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage(`${'a'.repeat(1500)}\n\n${'b'.repeat(1500)}`), deliverOptions());
    expect(server.requests.map((r) => (r.json as { id: string }).id)).toEqual(['delivery-1-0', 'delivery-1-1']);
  });

  it('treats a JSON-RPC error about the recipient as a bad target', async () => {
    const { deliverer } = setup();
    server.queue({ json: { jsonrpc: '2.0', error: { code: -1, message: 'Invalid recipient: +1' }, id: 'x' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
  });

  it('retries an HTTP 429 from the daemon after its Retry-After', async () => {
    const { deliverer } = setup();
    server.queue({ status: 429, headers: { 'retry-after': '0' }, body: 'Too Many Requests' });
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry an unauthorized answer from a proxy in front of the daemon', async () => {
    const { deliverer } = setup();
    server.queue({ status: 401, body: 'Unauthorized' });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(server.requests).toHaveLength(1);
  });

  it('start() checks GET /api/v1/check', async () => {
    const { deliverer } = setup();
    await deliverer.start!();
    expect(server.requests.map((r) => [r.method, r.path])).toEqual([['GET', '/api/v1/check']]);
  });
});
