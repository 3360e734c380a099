// Wire format from Slack's docs: chat.postMessage (https://docs.slack.dev/reference/methods/chat.postMessage:
// {ok, channel, ts, message}, errors {ok:false, error}, including rate_limited), incoming webhooks
// (https://docs.slack.dev/messaging/sending-messages-using-incoming-webhooks: the text "ok"), rate limits
// (https://docs.slack.dev/apis/web-api/rate-limits: HTTP 429 with Retry-After; one message per second per
// channel) and formatting (https://docs.slack.dev/messaging/formatting-message-text: escape & < >).
import type { Deliverer } from '@hookwise/core';
import { VirtualClock } from '@hookwise/kit/platform';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import plugin, { slackPlatform, type WorkspaceApiOptions } from '@hookwise/plugin-deliverer-slack';

const TOKEN = 'xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx';
const HOOK_PATH = '/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX';

let server: RecordingServer;
beforeEach(async () => {
  let ts = 1;
  server = await startRecordingServer((req) =>
    req.path === '/api/chat.postMessage'
      ? { json: { ok: true, channel: 'C123ABC456', ts: `1700000000.00000${ts++}`, message: { text: 'x', type: 'message' } } }
      : { body: 'ok' },
  );
});
afterEach(() => server.close());

const HOME = 'C0HOMEHOME1';
const CHANNEL = 'C0123456789';

function setup(overrides: Partial<WorkspaceApiOptions> = {}) {
  const test = createTestPluginContext();
  const clock = new VirtualClock();
  const options: WorkspaceApiOptions = { api_base: server.url, token: TOKEN, home_channel: HOME, timeout_seconds: 5, ...overrides };
  const deliverer: Deliverer = slackPlatform.createDeliverer(options, test.ctx, { clock });
  return { ...test, deliverer, clock };
}

const sentText = (i = 0) => (server.requests[i].json as { text: string }).text;

describe('slack (Slack)', () => {
  it('contributes slack (alias platform_03), which must be enabled', () => {
    expect(plugin.contributes).toEqual([slackPlatform]);
    expect([slackPlatform.id, slackPlatform.aliases]).toEqual(['slack', ['platform_03']]);
    expect(slackPlatform.requiresEnabled).toBe(true);
  });

  it('calls chat.postMessage with a bearer token and {channel, text} in mrkdwn', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage('**done** in *2 min*', { chat_id: CHANNEL }), deliverOptions());
    const [req] = server.requests;
    expect([req.method, req.path]).toEqual(['POST', '/api/chat.postMessage']);
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(req.json).toEqual({ channel: CHANNEL, text: '*done* in _2 min_', link_names: false });
    expect(receipt).toEqual({ target: CHANNEL, ids: ['1700000000.000001'] });
  });

  it('falls back to home_channel', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests[0].json).toEqual({ channel: HOME, text: 'hi', link_names: false });
  });

  it('posts {text} to an incoming webhook, which needs no channel', async () => {
    const { deliverer } = setup({ token: undefined, home_channel: undefined, webhook_url: `${server.url}${HOOK_PATH}` });
    const receipt = await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    const [req] = server.requests;
    expect([req.method, req.path, req.headers.authorization]).toEqual(['POST', HOOK_PATH, undefined]);
    expect(req.json).toEqual({ text: 'hi', link_names: false });
    expect(receipt).toEqual({ target: 'slack', ids: [] });
  });

  it('neutralises <!channel>, <!here> and <@U...> from the agent and escapes & < >', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('<!channel> <!here|here> ping <@U024BE7LH> & <b>bold</b> a > b'), deliverOptions());
    const text = sentText();
    expect(text).toBe('&lt;!channel&gt; &lt;!here|here&gt; ping &lt;@U024BE7LH&gt; &amp; &lt;b&gt;bold&lt;/b&gt; a &gt; b');
    expect(text).not.toMatch(/<[!@#]/);
  });

  it('converts markdown to mrkdwn: links, headings, bullets, strike, code kept escaped', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(
      deliveryMessage('# Deploy\n\n- see [the log](https://ci.example/1?a=1&b=2)\n- ~~old~~ `a<b`\n\n```ts\nif (a && b) {}\n```'),
      deliverOptions(),
    );
    expect(sentText()).toBe('*Deploy*\n\n• see <https://ci.example/1?a=1&amp;b=2|the log>\n• ~old~ `a&lt;b`\n\n```\nif (a &amp;&amp; b) {}\n```');
  });

  it.each(['..', 'general', '#general', `${CHANNEL}/x`, 'c0123456789', `<!channel>`])('refuses chat_id %j before sending', async (chatId) => {
    const { deliverer } = setup();
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: chatId }), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(server.requests).toHaveLength(0);
  });

  it('retries rate_limited ("posted too many messages") instead of dropping the answer', async () => {
    const { deliverer } = setup();
    server.queue({ json: { ok: false, error: 'rate_limited' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', true]);
    expect(err.message).toContain('rate_limited');
  });

  it('needs ok: true with a ts (or the webhook\'s "ok") to count a part as sent', async () => {
    const api = setup();
    server.queue({ json: { ok: true } });
    expect((await rejectionOf(api.deliverer.deliver(deliveryMessage('hi'), deliverOptions()))).retryable).toBe(false);
    const hook = setup({ token: undefined, webhook_url: `${server.url}${HOOK_PATH}` });
    server.queue({ status: 200, body: '' });
    const err = await rejectionOf(hook.deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect(err.message).toContain('the text "ok"');
  });

  it('paces parts at one message per second per channel', async () => {
    const { deliverer, clock } = setup();
    await deliverer.deliver(deliveryMessage('word '.repeat(1700)), deliverOptions());
    expect(clock.waits).toEqual([1000, 1000]);
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
