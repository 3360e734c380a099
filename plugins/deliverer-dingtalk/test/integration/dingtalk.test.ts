// Wire format from DingTalk's custom robot docs (https://open.dingtalk.com/document/orgapp/custom-robots-send-group-messages:
// POST /robot/send?access_token=...[&timestamp&sign], answers {"errcode":0,"errmsg":"ok"}; signing in
// https://open.dingtalk.com/document/orgapp/customize-robot-security-settings) and its limit ("每个机器人每分钟最多
// 发送20条消息，如果超过20条，会限流10分钟", errcode 130101 "send too fast").
import { createHmac } from 'node:crypto';
import type { Deliverer } from '@hookwise/core';
import { VirtualClock } from '@hookwise/kit/platform';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import plugin, { dingtalkPlatform, robotSignature, type CustomRobotOptions } from '@hookwise/plugin-deliverer-dingtalk';

const TOKEN = 'b4c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1';
const SECRET = 'SEC0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab';

let server: RecordingServer;
beforeEach(async () => {
  server = await startRecordingServer(() => ({ json: { errcode: 0, errmsg: 'ok' } }));
});
afterEach(() => server.close());

function setup(overrides: Partial<CustomRobotOptions> = {}) {
  const test = createTestPluginContext();
  const options: CustomRobotOptions = { api_base: server.url, token: TOKEN, msgtype: 'text', timeout_seconds: 5, ...overrides };
  const clock = new VirtualClock();
  const deliverer: Deliverer = dingtalkPlatform.createDeliverer(options, test.ctx, { clock });
  return { ...test, deliverer, clock };
}

describe('dingtalk (DingTalk custom robot)', () => {
  it('contributes dingtalk (alias platform_11), which must be enabled', () => {
    expect(plugin.contributes).toEqual([dingtalkPlatform]);
    expect([dingtalkPlatform.id, dingtalkPlatform.aliases]).toEqual(['dingtalk', ['platform_11']]);
    expect(dingtalkPlatform.requiresEnabled).toBe(true);
  });

  it('posts {msgtype:"text", text:{content}} to /robot/send with the access_token, unsigned without a secret', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage('Build **passed**'), deliverOptions());
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect([req.method, req.path]).toEqual(['POST', '/robot/send']);
    expect([...req.query.keys()]).toEqual(['access_token']);
    expect(req.query.get('access_token')).toBe(TOKEN);
    expect(req.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(req.json).toEqual({ msgtype: 'text', text: { content: 'Build passed' } });
    expect(receipt).toEqual({ target: 'dingtalk', ids: [] });
  });

  it('signs with timestamp (ms) and base64 HMAC-SHA256 of "timestamp\\nsecret", URL-encoded', async () => {
    const { deliverer } = setup({ secret: SECRET });
    const before = Date.now();
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    const after = Date.now();
    const [req] = server.requests;
    expect([...req.query.keys()]).toEqual(['access_token', 'timestamp', 'sign']);
    const timestamp = Number(req.query.get('timestamp'));
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(after);
    const expected = createHmac('sha256', SECRET).update(`${timestamp}\n${SECRET}`).digest('base64');
    expect(req.query.get('sign')).toBe(expected);
    expect(robotSignature(SECRET, timestamp)).toBe(expected);
    // base64 "+", "/" and "=" travel percent-encoded in the raw URL.
    expect(req.url).toContain(`sign=${encodeURIComponent(expected)}`);
  });

  it('sends markdown as {markdown:{title, text}} with the first line as title, numbered when split', async () => {
    const { deliverer } = setup({ msgtype: 'markdown' });
    await deliverer.deliver(deliveryMessage('## Deploy done\n\nAll **green**.'), deliverOptions());
    expect(server.requests[0].json).toEqual({ msgtype: 'markdown', markdown: { title: 'Deploy done', text: '## Deploy done\n\nAll **green**.' } });

    const long = `# Report\n\n${'状态正常。'.repeat(900)}\n\n${'结束。'.repeat(600)}`;
    await deliverer.deliver(deliveryMessage(long, {}, 'delivery-2'), deliverOptions());
    const titles = server.requests.slice(1).map((r) => (r.json as { markdown: { title: string } }).markdown.title);
    expect(titles).toEqual(['Report (1/2)', `${'结束。'.repeat(19)}结束… (2/2)`]);
  });

  it('uses the configured title', async () => {
    const { deliverer } = setup({ msgtype: 'markdown', title: 'CI [alert]' });
    await deliverer.deliver(deliveryMessage('text'), deliverOptions());
    expect((server.requests[0].json as { markdown: { title: string } }).markdown.title).toBe('CI [alert]');
  });

  it('needs no chat id or home channel: the robot posts to its own group', async () => {
    const { deliverer } = setup({ home_channel: undefined });
    expect((await deliverer.deliver(deliveryMessage('hi'), deliverOptions())).target).toBe('dingtalk');
    // A chat_id (one meant for another destination of the route, too) is sent nowhere and refused by nothing: the
    // receipt names it, and only a conversation id is recorded for conversations (dingtalk-conversation.test.ts).
    const receipt = await deliverer.deliver(deliveryMessage('hi', { chat_id: 'C0FIRST000' }), deliverOptions());
    expect(receipt.target).toBe('C0FIRST000');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1].json).toEqual(server.requests[0].json);
  });

  it('splits long answers at 15000 UTF-8 bytes, one message every 3 seconds (20 per minute)', async () => {
    const { deliverer, clock } = setup();
    const text = '部署完成，所有检查通过。'.repeat(1500);
    await deliverer.deliver(deliveryMessage(text), deliverOptions());
    expect(clock.waits).toEqual([3000, 3000, 3000]);
    const parts = server.requests.map((r) => (r.json as { text: { content: string } }).text.content);
    expect(parts.length).toBe(4);
    for (const p of parts) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(15000);
    expect(parts.join('')).toBe(text);
  });

  it('hands "send too fast" (130101) back for a retry after the 10-minute throttle, and the retry continues with the failed part', async () => {
    const { deliverer } = setup();
    const text = `${'a '.repeat(7000)}\n\n${'b '.repeat(7000)}`;
    server.queue({ json: { errcode: 0, errmsg: 'ok' } }, { json: { errcode: 130101, errmsg: 'send too fast, exceed 20 times per minute' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage(text), deliverOptions(1)));
    expect([err.code, err.retryable, err.retryAfterSeconds]).toEqual(['HW_E_DELIVERY', true, 600]);
    expect(err.message).toContain('130101');
    expect(err.message).toContain('throttled for 10 minutes');
    await deliverer.deliver(deliveryMessage(text), deliverOptions(2));
    const parts = server.requests.map((r) => (r.json as { text: { content: string } }).text.content[0]);
    expect(parts).toEqual(['a', 'b', 'b']);
  });

  it('does not retry 310000 (sign/keyword/IP check), says why, and shows neither token nor secret', async () => {
    const { deliverer, logs, redacted } = setup({ secret: SECRET });
    server.queue({ json: { errcode: 310000, errmsg: 'sign not match, more: [https://ding-doc.dingtalk.com/doc#/serverapi2/qf2nxq]' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(err.message).toContain('sign not match');
    expect(err.message).toContain('custom keyword');
    expect(err.message).toContain('POST http://127.0.0.1');
    expect(server.requests).toHaveLength(1);
    const output = err.message + logs.join('\n');
    expect(output).not.toContain(TOKEN);
    expect(output).not.toContain(SECRET);
    expect(redacted).toEqual(expect.arrayContaining([TOKEN, SECRET]));
  });

  it('reads the redirect of a throttled robot as the throttle, not as a configuration error', async () => {
    const { deliverer } = setup();
    server.queue({ status: 302, headers: { location: 'https://oapi.dingtalk.com/robot/limit' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable, err.retryAfterSeconds]).toEqual(['HW_E_DELIVERY', true, 600]);
  });

  it('needs errcode 0 to count a message as posted', async () => {
    const { deliverer } = setup();
    server.queue({ status: 200, body: 'OK' });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', false]);
  });

  it('keeps the token out of network errors', async () => {
    const { deliverer } = setup({ api_base: 'http://127.0.0.1:1' });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect(err.retryable).toBe(true);
    expect(err.message).not.toContain(TOKEN);
  });

  it('start() does not post anything', async () => {
    const { deliverer, logs } = setup();
    await deliverer.start!();
    expect(server.requests).toHaveLength(0);
    expect(logs.join('\n')).toContain('checked by the first delivery');
  });
});
