// Wire format from the WeCom server API docs: gettoken ({errcode, errmsg, access_token, expires_in}), 发送应用消息
// message/send (https://developer.work.weixin.qq.com/document/path/90236: answers {"errcode":0,"errmsg":"ok",
// "invaliduser":"userid1|userid2","invalidparty":"partyid1|partyid2","invalidtag":"tagid1|tagid2",
// "unlicenseduser":"userid3|userid4","msgid":"xxxx"}, 30 messages per minute per member), appchat/send and the
// group robot (https://developer.work.weixin.qq.com/document/path/91770: 20 messages per minute).
import type { Deliverer } from '@hookwise/core';
import { VirtualClock } from '@hookwise/kit/platform';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import plugin, { wecomPlatform, type WorkApiOptions } from '@hookwise/plugin-deliverer-wecom';

const CORP_SECRET = 'corpsecret-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2';
const WEBHOOK_KEY = '693a91f6-7aaa-4bc4-97a0-0ec2sifa5aaa';

let server: RecordingServer;
let issued: number;
beforeEach(async () => {
  issued = 0;
  server = await startRecordingServer((req) => {
    if (req.path === '/cgi-bin/gettoken') return { json: { errcode: 0, errmsg: 'ok', access_token: `wecom-token-${++issued}-abcdef`, expires_in: 7200 } };
    return { json: { errcode: 0, errmsg: 'ok', msgid: `msg${server.requests.length}` } };
  });
});
afterEach(() => server.close());

function setup(overrides: Partial<WorkApiOptions> = {}) {
  const test = createTestPluginContext();
  const options: WorkApiOptions = {
    api_base: server.url,
    corp_id: 'ww0123456789abcdef',
    corp_secret: CORP_SECRET,
    agent_id: 1000002,
    home_channel: 'wrHomeChat',
    timeout_seconds: 5,
    ...overrides,
  };
  const clock = new VirtualClock();
  const deliverer: Deliverer = wecomPlatform.createDeliverer(options, test.ctx, { clock });
  return { ...test, deliverer, clock };
}
const sends = () => server.requests.filter((r) => r.path !== '/cgi-bin/gettoken');
const tokens = () => server.requests.filter((r) => r.path === '/cgi-bin/gettoken');

describe('wecom (WeCom)', () => {
  it('contributes wecom (alias platform_13), which must be enabled', () => {
    expect(plugin.contributes).toEqual([wecomPlatform]);
    expect([wecomPlatform.id, wecomPlatform.aliases]).toEqual(['wecom', ['platform_13']]);
  });

  // Before: chat_id user:@all reached the whole company, and "a|b" several people.
  it.each(['user:@all', 'user:@ALL', 'user:zhangsan|lisi', 'party:1|2', 'user:', 'party:abc', '..', 'wr chat', 'user:a/../b'])(
    'refuses target %j before anything is sent',
    async (chatId) => {
      const { deliverer } = setup();
      const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: chatId }), deliverOptions()));
      expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
      expect(server.requests).toHaveLength(0);
    },
  );

  it('counts errcode 0 with some invalid users of a tag as a partial success, naming them in the receipt', async () => {
    const { deliverer, logs } = setup();
    server.queue(
      { json: { errcode: 0, errmsg: 'ok', access_token: 'wecom-token-x-abcdef', expires_in: 7200 } },
      {
        json: {
          errcode: 0,
          errmsg: 'ok',
          invaliduser: 'userid1|userid2',
          invalidparty: '',
          invalidtag: '',
          unlicenseduser: '',
          msgid: 'xxxx',
          response_code: 'xyzxyz',
        },
      },
    );
    const receipt = await deliverer.deliver(deliveryMessage('hi', { chat_id: 'tag:7' }), deliverOptions());
    expect(sends()[0].json).toEqual({ totag: '7', msgtype: 'text', agentid: 1000002, text: { content: 'hi' } });
    expect(receipt).toEqual({
      target: 'tag:7',
      ids: ['xxxx'],
      partial: [{ index: 0, message: expect.stringContaining('user:userid1, user:userid2'), failed: ['user:userid1', 'user:userid2'] }],
    });
    expect(logs.join('\n')).toContain('did not reach user:userid1, user:userid2');
  });

  it('needs errcode 0 to count a part as sent, and paces app messages at 30 per minute', async () => {
    const { deliverer, clock } = setup();
    server.queue({ json: { errcode: 0, errmsg: 'ok', access_token: 'wecom-token-x-abcdef', expires_in: 7200 } }, { status: 200, body: 'ok' });
    expect((await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()))).retryable).toBe(false);
    await deliverer.deliver(deliveryMessage('构建成功，测试全部通过。'.repeat(200), {}, 'd-2'), deliverOptions());
    expect(clock.waits.slice(-3)).toEqual([2000, 2000, 2000]);
  });

  it('gets a token with corpid/corpsecret and sends {chatid, msgtype, text} to appchat/send', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage('Build passed', { chat_id: 'wrChat1' }), deliverOptions());
    const [token, send] = server.requests;
    expect([token.method, token.path, Object.fromEntries(token.query)]).toEqual([
      'GET',
      '/cgi-bin/gettoken',
      { corpid: 'ww0123456789abcdef', corpsecret: CORP_SECRET },
    ]);
    expect([send.method, send.path, Object.fromEntries(send.query)]).toEqual(['POST', '/cgi-bin/appchat/send', { access_token: 'wecom-token-1-abcdef' }]);
    expect(send.json).toEqual({ chatid: 'wrChat1', msgtype: 'text', text: { content: 'Build passed' } });
    expect(receipt).toEqual({ target: 'wrChat1', ids: ['msg2'] });
  });

  it('sends user:<id> through message/send with the agentid, and falls back to home_channel', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('hi', { chat_id: 'user:zhangsan' }), deliverOptions());
    await deliverer.deliver(deliveryMessage('hey', {}, 'd2'), deliverOptions());
    expect(sends().map((r) => [r.path, r.json])).toEqual([
      ['/cgi-bin/message/send', { touser: 'zhangsan', msgtype: 'text', agentid: 1000002, text: { content: 'hi' } }],
      ['/cgi-bin/appchat/send', { chatid: 'wrHomeChat', msgtype: 'text', text: { content: 'hey' } }],
    ]);
    expect(tokens()).toHaveLength(1);
  });

  it('treats errcode 0 with invaliduser as a bad target', async () => {
    const { deliverer } = setup();
    server.queue(
      { json: { errcode: 0, errmsg: 'ok', access_token: 'wecom-token-x-abcdef', expires_in: 7200 } },
      { json: { errcode: 0, errmsg: 'ok', invaliduser: 'nobody' } },
    );
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: 'user:nobody' }), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(err.message).toContain('nobody');
  });

  it('splits at 2048 UTF-8 bytes', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('构建成功，测试全部通过。'.repeat(200)), deliverOptions());
    const parts = sends().map((r) => (r.json as { text: { content: string } }).text.content);
    expect(parts).toHaveLength(4);
    for (const p of parts) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(2048);
  });

  it('refreshes the token once on 42001 and repeats; 40014 twice is an auth error', async () => {
    const { deliverer } = setup();
    server.queue(
      { json: { errcode: 0, errmsg: 'ok', access_token: 'wecom-token-a-abcdef', expires_in: 7200 } },
      { json: { errcode: 42001, errmsg: 'access_token expired' } },
    );
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(sends().map((r) => r.query.get('access_token'))).toEqual(['wecom-token-a-abcdef', 'wecom-token-1-abcdef']);
    const invalid = { json: { errcode: 40014, errmsg: 'invalid access_token' } };
    server.queue(invalid, { json: { errcode: 0, access_token: 'wecom-token-b-abcdef', expires_in: 7200 } }, invalid);
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('x', {}, 'd2'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
  });

  it('returns 45009 as retryable and the retry sends only what is left', async () => {
    const { deliverer } = setup();
    const text = `${'a '.repeat(1000)}\n\n${'b '.repeat(1000)}`;
    server.queue(
      { json: { errcode: 0, access_token: 'wecom-token-a-abcdef', expires_in: 7200 } },
      { json: { errcode: 0, errmsg: 'ok' } },
      { json: { errcode: 45009, errmsg: 'api freq out of limit' } },
    );
    const err = await rejectionOf(deliverer.deliver(deliveryMessage(text), deliverOptions(1)));
    expect([err.retryable, err.message.includes('45009')]).toEqual([true, true]);
    await deliverer.deliver(deliveryMessage(text), deliverOptions(2));
    expect(sends().map((r) => (r.json as { text: { content: string } }).text.content[0])).toEqual(['a', 'b', 'b']);
  });

  it('does not retry a wrong corp secret and never shows it', async () => {
    const { deliverer, logs, redacted } = setup();
    server.queue({ json: { errcode: 40001, errmsg: 'invalid credential' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(err.message + logs.join('\n')).not.toContain(CORP_SECRET);
    expect(redacted).toContain(CORP_SECRET);
  });

  it('group robot: posts to webhook/send?key= without token or target, and redacts the key', async () => {
    const { deliverer, logs, redacted } = setup({ corp_id: undefined, corp_secret: undefined, home_channel: undefined, webhook_key: WEBHOOK_KEY });
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests.map((r) => [r.method, r.path, Object.fromEntries(r.query), r.json])).toEqual([
      ['POST', '/cgi-bin/webhook/send', { key: WEBHOOK_KEY }, { msgtype: 'text', text: { content: 'hi' } }],
    ]);
    server.queue({ json: { errcode: 93000, errmsg: 'invalid webhook url' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', {}, 'd2'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(err.message + logs.join('\n')).not.toContain(WEBHOOK_KEY);
    expect(redacted).toContain(WEBHOOK_KEY);
  });

  it('start() checks the app credentials with a token', async () => {
    const { deliverer } = setup();
    await deliverer.start!();
    expect(server.requests.map((r) => r.path)).toEqual(['/cgi-bin/gettoken', '/cgi-bin/get_api_domain_ip']);
  });
});
