// Wire format from the Feishu open platform docs: tenant_access_token/internal ({code, msg, tenant_access_token,
// expire}), Send message (https://open.feishu.cn/document/server-docs/im-v1/message/create: {code: 0, msg:
// "success", data: {message_id}}, uuid for de-duplication, 5 QPS per user/group), custom bots
// (https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot: signed {timestamp, sign}, 100/min).
import { createHmac } from 'node:crypto';
import type { Deliverer } from '@hookwise/core';
import { VirtualClock } from '@hookwise/kit/platform';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import plugin, { messageUuid, feishuPlatform, type OpenPlatformOptions } from '@hookwise/plugin-deliverer-feishu';

const APP_SECRET = 'appsecret-4f8e2d1c9b7a6e5f4d3c2b1a';
const TOKEN_PATH = '/open-apis/auth/v3/tenant_access_token/internal';
const HOOK_PATH = '/open-apis/bot/v2/hook/0f9e8d7c-6b5a-4321-9abc-def012345678';

let server: RecordingServer;
let issued: number;
let expire: number;
beforeEach(async () => {
  issued = 0;
  expire = 7200;
  server = await startRecordingServer((req) => {
    if (req.path === TOKEN_PATH) return { json: { code: 0, msg: 'ok', tenant_access_token: `t-g1044ab7tenant${++issued}`, expire } };
    if (req.path === '/open-apis/bot/v3/info') return { json: { code: 0, msg: 'ok', bot: { app_name: 'Hookwise' } } };
    return { json: { code: 0, msg: 'success', data: { message_id: `om_${server.requests.length}` } } };
  });
});
afterEach(() => server.close());

function setup(overrides: Partial<OpenPlatformOptions> = {}) {
  const test = createTestPluginContext();
  const options: OpenPlatformOptions = {
    api_base: server.url,
    app_id: 'cli_a1b2c3d4e5f6',
    app_secret: APP_SECRET,
    home_channel: 'oc_home',
    timeout_seconds: 5,
    ...overrides,
  };
  const clock = new VirtualClock();
  const deliverer: Deliverer = feishuPlatform.createDeliverer(options, test.ctx, { clock });
  return { ...test, deliverer, clock };
}
const sends = () => server.requests.filter((r) => r.path === '/open-apis/im/v1/messages');
const tokenRequests = () => server.requests.filter((r) => r.path === TOKEN_PATH);

describe('feishu (Feishu/Lark)', () => {
  it('contributes feishu (alias platform_12), which must be enabled', () => {
    expect(plugin.contributes).toEqual([feishuPlatform]);
    expect([feishuPlatform.id, feishuPlatform.aliases]).toEqual(['feishu', ['platform_12']]);
  });

  it.each(['..', 'oc_abc/../x', 'general', 'a@b.c,d@e.f', 'user:ou_1'])('refuses receive id %j before sending', async (chatId) => {
    const { deliverer } = setup();
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: chatId }), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(sends()).toHaveLength(0);
  });

  it('needs code 0 with data.message_id to count a part as sent', async () => {
    const { deliverer } = setup();
    server.queue({ json: { code: 0, msg: 'ok', tenant_access_token: 't-x', expire: 7200 } }, { json: { code: 0, msg: 'success', data: {} } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', false]);
    expect(feishuPlatform.requiresEnabled).toBe(true);
  });

  it('gets a tenant token, then posts {receive_id, msg_type, content, uuid} with it to im/v1/messages', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage('Build passed', { chat_id: 'oc_abc123' }), deliverOptions());
    const [token, send] = server.requests;
    expect([token.method, token.path]).toEqual(['POST', TOKEN_PATH]);
    expect(token.json).toEqual({ app_id: 'cli_a1b2c3d4e5f6', app_secret: APP_SECRET });
    expect([send.method, send.path, send.query.get('receive_id_type')]).toEqual(['POST', '/open-apis/im/v1/messages', 'chat_id']);
    expect([...send.query.keys()]).toEqual(['receive_id_type']);
    expect(send.headers.authorization).toBe('Bearer t-g1044ab7tenant1');
    expect(send.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(send.json).toEqual({
      receive_id: 'oc_abc123',
      msg_type: 'text',
      content: JSON.stringify({ text: 'Build passed' }),
      uuid: messageUuid({ route: 'test-route', deliveryId: 'delivery-1', destination: 'feishu', index: 0 }),
    });
    expect(receipt).toEqual({ target: 'oc_abc123', ids: ['om_2'] });
  });

  it('falls back to home_channel and picks receive_id_type from the id', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('a'), deliverOptions());
    await deliverer.deliver(deliveryMessage('b', { chat_id: 'ou_user1' }, 'd2'), deliverOptions());
    await deliverer.deliver(deliveryMessage('c', { chat_id: 'dev@example.com' }, 'd3'), deliverOptions());
    expect(sends().map((r) => [r.query.get('receive_id_type'), (r.json as { receive_id: string }).receive_id])).toEqual([
      ['chat_id', 'oc_home'],
      ['open_id', 'ou_user1'],
      ['email', 'dev@example.com'],
    ]);
  });

  it('caches the tenant token across deliveries', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('a'), deliverOptions());
    await deliverer.deliver(deliveryMessage('b', {}, 'd2'), deliverOptions());
    expect(tokenRequests()).toHaveLength(1);
    expect(sends().map((r) => r.headers.authorization)).toEqual(['Bearer t-g1044ab7tenant1', 'Bearer t-g1044ab7tenant1']);
  });

  it('does not reuse a token past its announced expiry (renewed 5 minutes early)', async () => {
    expire = 300;
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('a'), deliverOptions());
    await deliverer.deliver(deliveryMessage('b', {}, 'd2'), deliverOptions());
    expect(tokenRequests()).toHaveLength(2);
  });

  it('refreshes the token once on 99991663 and repeats the send; a second refusal is an auth error', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('warm'), deliverOptions());
    server.queue({ status: 400, json: { code: 99991663, msg: 'Invalid access token for authorization. Please make a request with token attached.' } });
    await deliverer.deliver(deliveryMessage('again', {}, 'd2'), deliverOptions());
    expect(tokenRequests()).toHaveLength(2);
    expect(
      sends()
        .slice(1)
        .map((r) => r.headers.authorization),
    ).toEqual(['Bearer t-g1044ab7tenant1', 'Bearer t-g1044ab7tenant2']);

    const expired = { status: 400, json: { code: 99991668, msg: 'Invalid access token' } };
    server.queue(expired, { json: { code: 0, msg: 'ok', tenant_access_token: 't-g1044ab7tenant3', expire: 7200 } }, expired);
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('x', {}, 'd3'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(tokenRequests()).toHaveLength(3);
  });

  it('splits long answers into parts of at most 15000 UTF-8 bytes, each with its own uuid, 5 per second', async () => {
    const { deliverer, clock } = setup();
    await deliverer.deliver(deliveryMessage('发布成功，一切正常。'.repeat(1200)), deliverOptions());
    const parts = sends().map((r) => JSON.parse((r.json as { content: string }).content).text as string);
    expect(parts).toHaveLength(3);
    for (const p of parts) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(15000);
    expect(new Set(sends().map((r) => (r.json as { uuid: string }).uuid)).size).toBe(3);
    expect(clock.waits).toEqual([200, 200]);
  });

  it('waits out a 99991400 rate limit as x-ogw-ratelimit-reset asks and sends again', async () => {
    const { deliverer } = setup();
    server.queue({ json: { code: 0, msg: 'ok', tenant_access_token: 't-g1044ab7tenant1', expire: 7200 } });
    server.queue({ status: 429, headers: { 'x-ogw-ratelimit-reset': '1' }, json: { code: 99991400, msg: 'request trigger frequency limit' } });
    const receipt = await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(sends()).toHaveLength(2);
    expect(receipt.ids).toHaveLength(1);
  });

  it('hands a long rate-limit wait back to the worker as retryable', async () => {
    const { deliverer } = setup();
    server.queue({ json: { code: 0, msg: 'ok', tenant_access_token: 't-g1044ab7tenant1', expire: 7200 } });
    server.queue({ status: 400, headers: { 'x-ogw-ratelimit-reset': '52' }, json: { code: 99991400, msg: 'request trigger frequency limit' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.retryable, err.retryAfterSeconds]).toEqual([true, 52]);
  });

  it('does not retry bad app credentials and never shows the secret or a token', async () => {
    const { deliverer, logs, redacted } = setup();
    server.queue({ json: { code: 10014, msg: 'app secret invalid' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(err.message).toContain('app secret invalid');
    expect(sends()).toHaveLength(0);
    expect(err.message + logs.join('\n')).not.toContain(APP_SECRET);
    expect(redacted).toContain(APP_SECRET);
  });

  it('registers issued tenant tokens for redaction', async () => {
    const { deliverer, redacted, logs } = setup();
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(redacted).toContain('t-g1044ab7tenant1');
    expect(logs.join('\n')).not.toContain('t-g1044ab7tenant1');
  });

  it('maps 230002 (bot not in chat) to a bad target', async () => {
    const { deliverer } = setup();
    server.queue({ json: { code: 0, msg: 'ok', tenant_access_token: 't-g1044ab7tenant1', expire: 7200 } });
    server.queue({ status: 400, json: { code: 230002, msg: 'Bot/User can NOT be out of the chat.' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(err.message).toContain('add the bot to the group');
  });

  it('custom bot: posts a signed {timestamp, sign, msg_type, content} to the webhook without any token', async () => {
    const secret = 'botsecret-9a8b7c6d5e4f';
    const { deliverer, logs } = setup({ app_id: undefined, app_secret: undefined, home_channel: undefined, webhook_url: `${server.url}${HOOK_PATH}`, secret });
    const before = Math.floor(Date.now() / 1000);
    const receipt = await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    const after = Math.floor(Date.now() / 1000);
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect([req.method, req.path, req.headers.authorization]).toEqual(['POST', HOOK_PATH, undefined]);
    const body = req.json as { timestamp: string; sign: string };
    const ts = Number(body.timestamp);
    expect(ts).toBeGreaterThanOrEqual(before);
    expect(ts).toBeLessThanOrEqual(after);
    const sign = createHmac('sha256', `${body.timestamp}\n${secret}`).update('').digest('base64');
    expect(req.json).toEqual({ timestamp: body.timestamp, sign, msg_type: 'text', content: { text: 'hi' } });
    expect(receipt.target).toBe('feishu');

    server.queue({ json: { code: 19021, msg: 'sign match fail or timestamp is not within one hour from current time', data: {} } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', {}, 'd2'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(err.message + logs.join('\n')).not.toContain('0f9e8d7c-6b5a');
  });

  it('refuses incomplete credentials at creation', () => {
    expect(() => setup({ app_secret: undefined })).toThrow(/set both app_id and app_secret/);
  });

  it('start() checks the bot with the tenant token', async () => {
    const { deliverer, logs } = setup();
    await deliverer.start!();
    expect(server.requests.map((r) => [r.method, r.path])).toEqual([
      ['POST', TOKEN_PATH],
      ['GET', '/open-apis/bot/v3/info'],
    ]);
    expect(server.requests[1].headers.authorization).toBe('Bearer t-g1044ab7tenant1');
    expect(logs.join('\n')).toContain('connected as Hookwise');
  });
});
