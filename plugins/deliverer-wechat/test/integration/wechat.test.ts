// Wire format from the WeChat Official Account docs: getStableAccessToken (https://developers.weixin.qq.com/doc/offiaccount/Basic_Information/getStableAccessToken.html:
// POST /cgi-bin/stable_token {grant_type, appid, secret, force_refresh} -> {access_token, expires_in}), the
// customer-service message API (https://developers.weixin.qq.com/doc/offiaccount/Message_Management/Service_Center_messages.html:
// {touser, msgtype: "text", text: {content}} -> {errcode: 0, errmsg: "ok"}) and the global return codes
// (https://developers.weixin.qq.com/doc/offiaccount/Getting_Started/Global_Return_Code.html: 45015, 45047, 40001).
import type { Deliverer } from '@hookwise/core';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import plugin, { wechatPlatform, type OfficialAccountOptions } from '@hookwise/plugin-deliverer-wechat';

const APP_SECRET = 'wxsecret-0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const OPENID = 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o';

let server: RecordingServer;
let issued: number;
beforeEach(async () => {
  issued = 0;
  server = await startRecordingServer((req) =>
    req.path === '/cgi-bin/stable_token' ? { json: { access_token: `wx-access-${++issued}-token`, expires_in: 7200 } } : { json: { errcode: 0, errmsg: 'ok' } },
  );
});
afterEach(() => server.close());

function setup(overrides: Partial<OfficialAccountOptions> = {}) {
  const test = createTestPluginContext();
  const options: OfficialAccountOptions = {
    api_base: server.url,
    app_id: 'wx1234567890abcdef',
    app_secret: APP_SECRET,
    home_channel: OPENID,
    timeout_seconds: 5,
    ...overrides,
  };
  return { ...test, deliverer: wechatPlatform.create(options, test.ctx) as Deliverer };
}
const sends = () => server.requests.filter((r) => r.path === '/cgi-bin/message/custom/send');

const OTHER = 'oUpF8uN95-0ZOBgKfCmBZGmTgDkA';

describe('wechat (WeChat Official Account)', () => {
  it('contributes wechat (alias platform_14)', () => {
    expect(plugin.contributes).toEqual([wechatPlatform]);
    expect([wechatPlatform.id, wechatPlatform.aliases]).toEqual(['wechat', ['platform_14']]);
  });

  it('gets a stable token (POST stable_token, JSON), then sends {touser, msgtype, text} to message/custom/send', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage('Build passed', { chat_id: OTHER }), deliverOptions());
    const [token, send] = server.requests;
    expect([token.method, token.path, [...token.query.keys()]]).toEqual(['POST', '/cgi-bin/stable_token', []]);
    expect(token.json).toEqual({ grant_type: 'client_credential', appid: 'wx1234567890abcdef', secret: APP_SECRET, force_refresh: false });
    expect([send.method, send.path, Object.fromEntries(send.query)]).toEqual(['POST', '/cgi-bin/message/custom/send', { access_token: 'wx-access-1-token' }]);
    expect(send.json).toEqual({ touser: OTHER, msgtype: 'text', text: { content: 'Build passed' } });
    expect(receipt.target).toBe(OTHER);
  });

  it.each(['..', 'oOther', `${OPENID}/x`, `${OPENID},${OTHER}`])('refuses touser %j before sending', async (chatId) => {
    const { deliverer } = setup();
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: chatId }), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(server.requests).toHaveLength(0);
  });

  it('needs errcode 0 to count a part as sent', async () => {
    const { deliverer } = setup();
    server.queue({ json: { access_token: 'wx-access-a-token', expires_in: 7200 } }, { status: 200, body: '' });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', false]);
  });

  it('falls back to home_channel and caches the token', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('a'), deliverOptions());
    await deliverer.deliver(deliveryMessage('b', {}, 'd2'), deliverOptions());
    expect(sends().map((r) => (r.json as { touser: string }).touser)).toEqual([OPENID, OPENID]);
    expect(server.requests.filter((r) => r.path === '/cgi-bin/stable_token')).toHaveLength(1);
  });

  it('splits at 2048 UTF-8 bytes', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('您的订单已经发货，请注意查收。'.repeat(100)), deliverOptions());
    const parts = sends().map((r) => (r.json as { text: { content: string } }).text.content);
    expect(parts.length).toBe(3);
    for (const p of parts) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(2048);
  });

  it('refreshes once on 40001 and repeats the send with the new token', async () => {
    const { deliverer } = setup();
    server.queue(
      { json: { access_token: 'wx-access-old-token', expires_in: 7200 } },
      { json: { errcode: 40001, errmsg: 'invalid credential, access_token is invalid or not latest' } },
    );
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(sends().map((r) => r.query.get('access_token'))).toEqual(['wx-access-old-token', 'wx-access-1-token']);
  });

  it('does not retry 45015 and explains the 48-hour reply window', async () => {
    const { deliverer } = setup();
    server.queue(
      { json: { access_token: 'wx-access-a-token', expires_in: 7200 } },
      { json: { errcode: 45015, errmsg: 'response out of time limit or subscription is canceled' } },
    );
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', false]);
    expect(err.message).toContain('48 hours');
  });

  it('retries system busy (-1) but not 45047 (the per-interaction message count is used up)', async () => {
    const { deliverer } = setup();
    server.queue({ json: { access_token: 'wx-access-a-token', expires_in: 7200 } }, { json: { errcode: -1, errmsg: 'system error' } });
    expect((await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()))).retryable).toBe(true);
    server.queue({ json: { errcode: 45047, errmsg: 'out of response count limit' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions(2)));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', false]);
    expect(err.message).toContain('after the user writes to the account again');
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions(3));
    expect(sends()).toHaveLength(3);
  });

  it('does not retry a bad AppSecret and keeps secret and tokens out of output', async () => {
    const { deliverer, logs, redacted } = setup();
    server.queue({ json: { errcode: 40125, errmsg: 'invalid appsecret' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    await deliverer.deliver(deliveryMessage('hi', {}, 'd2'), deliverOptions());
    expect(redacted).toEqual(expect.arrayContaining([APP_SECRET, 'wx-access-1-token']));
    expect(err.message + logs.join('\n')).not.toMatch(/wxsecret-0a1b|wx-access-1-token/);
  });
});
