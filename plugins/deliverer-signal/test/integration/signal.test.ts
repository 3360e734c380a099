// Wire format from signal-cli's man page signal-cli-jsonrpc(5) (https://github.com/AsamK/signal-cli/blob/master/man/signal-cli-jsonrpc.5.adoc:
// send answers {"jsonrpc":"2.0","result":{"timestamp":999},"id":4}, errors {"error":{"code","message","data"}})
// and its send results (SendMessageResult: type SUCCESS / NETWORK_FAILURE / UNREGISTERED_FAILURE /
// IDENTITY_FAILURE / RATE_LIMIT_FAILURE with retryAfterSeconds; error codes -1 user, -4 untrusted key,
// -5 rate limit, with the results in data.response).
import type { Deliverer } from '@hookwise/core';
import { VirtualClock } from '@hookwise/kit/platform';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import plugin, { signalPlatform, type JsonRpcDaemonOptions } from '@hookwise/plugin-deliverer-signal';

const ACCOUNT = '+4915100000001';
const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI=';
const sent = (ts: number) => ({
  json: {
    jsonrpc: '2.0',
    result: { timestamp: ts, results: [{ recipientAddress: { uuid: 'b4d5c1f0-0000-4000-8000-000000000001', number: '+4915100000002' }, type: 'SUCCESS' }] },
    id: 'x',
  },
});
const rpcError = (code: number, message: string, results: unknown[]) => ({
  json: { jsonrpc: '2.0', error: { code, message, data: { response: { timestamp: 1, results } } }, id: 'x' },
});
const recipient = (number: string, type: string, extra: Record<string, unknown> = {}) => ({ recipientAddress: { uuid: null, number }, type, ...extra });

let server: RecordingServer;
beforeEach(async () => {
  let ts = 1700000000000;
  server = await startRecordingServer((req) => (req.path === '/api/v1/check' ? { status: 200, body: '' } : sent(ts++)));
});
afterEach(() => server.close());

function setup(overrides: Partial<JsonRpcDaemonOptions> = {}) {
  const test = createTestPluginContext();
  const options: JsonRpcDaemonOptions = { api_base: server.url, account: ACCOUNT, home_channel: '+4915100000002', timeout_seconds: 5, ...overrides };
  const deliverer: Deliverer = signalPlatform.createDeliverer(options, test.ctx, { clock: new VirtualClock() });
  return { ...test, deliverer };
}

describe('signal (Signal via signal-cli daemon)', () => {
  it('contributes signal (alias platform_04), which must be enabled, and requires api_base', () => {
    expect(plugin.contributes).toEqual([signalPlatform]);
    expect([signalPlatform.id, signalPlatform.aliases]).toEqual(['signal', ['platform_04']]);
    expect(signalPlatform.requiresEnabled).toBe(true);
    expect((signalPlatform.optionsSchema as { required: string[] }).required).toEqual(['api_base', 'account']);
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
    const { deliverer } = setup({ home_channel: `group:${GROUP}` });
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect((server.requests[0].json as { params: unknown }).params).toEqual({ account: ACCOUNT, groupId: GROUP, message: 'hi' });
  });

  it('reads group.<id> as signal-cli-rest-api writes it (base64 of the group id)', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('hi', { chat_id: `group.${Buffer.from(GROUP).toString('base64')}` }), deliverOptions());
    expect((server.requests[0].json as { params: { groupId: string } }).params.groupId).toBe(GROUP);
  });

  it('sends to a Signal UUID', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('hi', { chat_id: 'b4d5c1f0-0000-4000-8000-000000000001' }), deliverOptions());
    expect((server.requests[0].json as { params: { recipient: string[] } }).params.recipient).toEqual(['b4d5c1f0-0000-4000-8000-000000000001']);
  });

  it.each(['..', '004915100000003', '+49 151 000', 'group:aGVsbG8=', 'group.bm90IGEgZ3JvdXA=', 'u:someone.01', '+1'])(
    'refuses target %j before sending',
    async (chatId) => {
      const { deliverer } = setup();
      const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: chatId }), deliverOptions()));
      expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
      expect(server.requests).toHaveLength(0);
    },
  );

  it('retries a rate-limit failure (error -5) after the largest retryAfterSeconds of the results', async () => {
    const { deliverer } = setup();
    server.queue(rpcError(-5, 'Failed to send message due to rate limiting', [recipient('+4915100000002', 'RATE_LIMIT_FAILURE', { retryAfterSeconds: 3600 })]));
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable, err.retryAfterSeconds]).toEqual(['HW_E_DELIVERY', true, 3600]);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a per-recipient NETWORK_FAILURE', async () => {
    const { deliverer } = setup();
    server.queue(rpcError(-1, 'Failed to send message', [recipient('+4915100000002', 'NETWORK_FAILURE')]));
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', true]);
    expect(err.message).toContain('+4915100000002: NETWORK_FAILURE');
  });

  it('reports an unregistered recipient as a bad target, from the results or the error text', async () => {
    const { deliverer } = setup();
    server.queue(rpcError(-1, 'Failed to send message', [recipient('+4915100000002', 'UNREGISTERED_FAILURE')]));
    const fromResults = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([fromResults.code, fromResults.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(fromResults.message).toContain('not registered on Signal');
    server.queue({ json: { jsonrpc: '2.0', error: { code: -1, message: 'The user +4915100000002 is not registered.', data: null }, id: 'x' } });
    const fromText = await rejectionOf(deliverer.deliver(deliveryMessage('hi', {}, 'd-2'), deliverOptions()));
    expect([fromText.code, fromText.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
  });

  it('reports an unregistered sending account as a credentials problem', async () => {
    const { deliverer } = setup();
    server.queue({ json: { jsonrpc: '2.0', error: { code: -1, message: `User ${ACCOUNT} is not registered.`, data: null }, id: 'x' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(err.message).toContain('platforms.signal.account');
  });

  it('counts a group send that reached some members as sent, naming the others in the receipt', async () => {
    const { deliverer, logs } = setup({ home_channel: `group:${GROUP}` });
    server.queue({
      json: {
        jsonrpc: '2.0',
        result: { timestamp: 42, results: [recipient('+4915100000002', 'SUCCESS'), recipient('+4915100000009', 'UNREGISTERED_FAILURE')] },
        id: 'x',
      },
    });
    const receipt = await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(receipt).toEqual({
      target: `group:${GROUP}`,
      ids: ['42'],
      partial: [{ index: 0, message: '+4915100000009: UNREGISTERED_FAILURE', failed: ['+4915100000009'] }],
    });
    expect(logs.join('\n')).toContain('did not reach +4915100000009');
  });

  it('splits answers at 2000 characters with one request id per chunk', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage(`${'a'.repeat(1500)}\n\n${'b'.repeat(1500)}`), deliverOptions());
    expect(server.requests.map((r) => (r.json as { id: string }).id)).toEqual(['delivery-1-0', 'delivery-1-1']);
  });

  it('treats a JSON-RPC error about the recipient as a bad target', async () => {
    const { deliverer } = setup();
    server.queue({ json: { jsonrpc: '2.0', error: { code: -1, message: "Invalid phone number '+4915100000002': not a valid number" }, id: 'x' } });
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
