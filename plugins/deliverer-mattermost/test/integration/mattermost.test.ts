// Wire format from the Mattermost API reference: Create a post (https://developers.mattermost.com/api-documentation/#/operations/CreatePost:
// 201 with the Post object {id, create_at, user_id, channel_id, root_id, message, ...}) and its error answers
// ({id, message, detailed_error, request_id, status_code}).
import type { Deliverer } from '@hookwise/core';
import { VirtualClock, deliveryKey } from '@hookwise/kit/platform';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import plugin, { mattermostPlatform, type PostsApiOptions } from '@hookwise/plugin-deliverer-mattermost';

const TOKEN = 'xjxq8kcr1pbtmrgzbg4w3ryo9e';
const CHANNEL = '4xp9fdt77pncbef59f4k1qe83o';
const HOME = 'bq8wmsd5fpngdmbw1wsn9cbmjo';

let server: RecordingServer;
beforeEach(async () => {
  let n = 1;
  server = await startRecordingServer((req) => ({
    status: 201,
    json: { id: `post${n++}`, channel_id: (req.json as { channel_id: string }).channel_id, message: '' },
  }));
});
afterEach(() => server.close());

function setup(overrides: Partial<PostsApiOptions> = {}) {
  const test = createTestPluginContext();
  const options: PostsApiOptions = { api_base: `${server.url}/`, token: TOKEN, home_channel: HOME, timeout_seconds: 5, ...overrides };
  const clock = new VirtualClock();
  const deliverer: Deliverer = mattermostPlatform.createDeliverer(options, test.ctx, { clock });
  return { ...test, deliverer, clock };
}

const mmError = (status: number, id: string, message: string) => ({
  status,
  json: { id, message, detailed_error: '', request_id: 'r8k3n1x', status_code: status },
});

describe('mattermost (Mattermost)', () => {
  it('refuses a channel name, a hostile id or a root_id that is no post id, before sending', async () => {
    const { deliverer } = setup();
    const hostile: Array<Record<string, string>> = [{ chat_id: 'town-square' }, { chat_id: '..' }, { chat_id: `${CHANNEL}/x` }, { root_id: '../../users/me' }];
    for (const extra of hostile) {
      const err = await rejectionOf(deliverer.deliver(deliveryMessage('a', extra), deliverOptions()));
      expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    }
    expect(server.requests).toHaveLength(0);
  });

  it("needs the created post's id to count a part as sent, and paces parts at 10 per second", async () => {
    const { deliverer, clock } = setup();
    server.queue({ status: 200, json: { status: 'OK' } });
    expect((await rejectionOf(deliverer.deliver(deliveryMessage('a'), deliverOptions()))).retryable).toBe(false);
    await deliverer.deliver(deliveryMessage(`${'x'.repeat(16000)}\n\n${'y'.repeat(16000)}`, {}, 'd-2'), deliverOptions());
    expect(clock.waits.slice(-1)).toEqual([100]);
  });

  it('contributes mattermost (alias platform_08), which must be enabled, with api_base and token required', () => {
    expect([mattermostPlatform.id, mattermostPlatform.aliases]).toEqual(['mattermost', ['platform_08']]);
    expect(plugin.contributes).toEqual([mattermostPlatform]);
    expect(mattermostPlatform.requiresEnabled).toBe(true);
    expect((mattermostPlatform.optionsSchema as { required: string[] }).required).toEqual(['api_base', 'token']);
  });

  it('POSTs {channel_id, message} with a bearer token to /api/v4/posts, markdown as written', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage('**CI** failed', { chat_id: CHANNEL }), deliverOptions());
    const [req] = server.requests;
    expect([req.method, req.path]).toEqual(['POST', '/api/v4/posts']);
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.json).toEqual({
      channel_id: CHANNEL,
      message: '**CI** failed',
      pending_post_id: `hookwise:${deliveryKey({ route: 'test-route', deliveryId: 'delivery-1', destination: 'mattermost', index: 0 })}`,
    });
    expect(receipt).toEqual({ target: CHANNEL, ids: ['post1'] });
  });

  it('replies in a thread with root_id from deliver_extra.root_id, or thread_id as an alias', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('a', { root_id: 'rootpost0000000000000000aa' }), deliverOptions());
    await deliverer.deliver(deliveryMessage('b', { thread_id: 'rootpost0000000000000000bb' }, 'delivery-2'), deliverOptions());
    expect(server.requests.map((r) => r.json)).toEqual([
      {
        channel_id: HOME,
        message: 'a',
        root_id: 'rootpost0000000000000000aa',
        pending_post_id: `hookwise:${deliveryKey({ route: 'test-route', deliveryId: 'delivery-1', destination: 'mattermost', index: 0 })}`,
      },
      {
        channel_id: HOME,
        message: 'b',
        root_id: 'rootpost0000000000000000bb',
        pending_post_id: `hookwise:${deliveryKey({ route: 'test-route', deliveryId: 'delivery-2', destination: 'mattermost', index: 0 })}`,
      },
    ]);
  });

  it('posts to home_channel when the route gives no chat_id', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect((server.requests[0].json as { channel_id: string }).channel_id).toBe(HOME);
  });

  it('splits answers longer than 16383 characters', async () => {
    const { deliverer } = setup();
    const text = Array.from({ length: 400 }, (_, i) => `paragraph ${i} ${'z'.repeat(80)}`).join('\n\n');
    const receipt = await deliverer.deliver(deliveryMessage(text), deliverOptions());
    const messages = server.requests.map((r) => (r.json as { message: string }).message);
    expect(messages.length).toBe(3);
    for (const m of messages) expect(m.length).toBeLessThanOrEqual(16383);
    expect(messages.join('\n\n')).toBe(text);
    expect(receipt.ids).toEqual(['post1', 'post2', 'post3']);
  });

  it('retries a 429 after Retry-After', async () => {
    const { deliverer } = setup();
    server.queue({
      status: 429,
      headers: { 'retry-after': '1', 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' },
      body: 'limit exceeded\n',
    });
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a 401 and never shows the token', async () => {
    const { deliverer, logs, redacted } = setup();
    server.queue(mmError(401, 'api.context.session_expired.app_error', 'Invalid or expired session, please login again.'));
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(err.message).toContain('api.context.session_expired.app_error');
    expect(server.requests).toHaveLength(1);
    expect(err.message + logs.join('\n')).not.toContain(TOKEN);
    expect(redacted).toContain(TOKEN);
  });

  it('reports a channel the bot may not post to (403) as a bad target', async () => {
    const { deliverer } = setup();
    server.queue(mmError(403, 'api.context.permissions.app_error', 'You do not have the appropriate permissions.'));
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
  });

  it("carries a conversation facet by channel: the answer to a reply goes to the same channel, in the route's thread if any", async () => {
    const { deliverer } = setup();
    const facet = deliverer.conversation!;
    expect([facet.platform, facet.byChat, facet.sentRefs]).toEqual(['mattermost', true, undefined]);
    const to = { platform: 'mattermost', chat: CHANNEL, messageId: '' };
    expect(facet.replyExtra(to, { chat_id: HOME, root_id: 'rootpost0000000000000000aa' })).toEqual({ chat_id: CHANNEL, root_id: 'rootpost0000000000000000aa' });
    // A route that posts to home_channel keeps doing so (its answers were recorded in that channel).
    const extra = facet.replyExtra(to, {});
    expect(extra).toEqual({});
    await deliverer.deliver(deliveryMessage('answer', facet.replyExtra(to, { chat_id: HOME })), deliverOptions());
    expect((server.requests[0].json as { channel_id: string }).channel_id).toBe(CHANNEL);
  });

  it('start() calls /api/v4/users/me', async () => {
    const { deliverer, logs } = setup();
    server.queue({ status: 200, json: { id: 'u1', username: 'hookwise-bot', is_bot: true } });
    await deliverer.start!();
    expect(server.requests.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([['GET', '/api/v4/users/me', `Bearer ${TOKEN}`]]);
    expect(logs.join('\n')).toContain('connected as @hookwise-bot');
  });
});
