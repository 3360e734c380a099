// Wire format from Discord's API reference: Create Message (https://discord.com/developers/docs/resources/message#create-message),
// Execute Webhook with ?wait=true (https://discord.com/developers/docs/resources/webhook#execute-webhook),
// the User Agent section (https://discord.com/developers/docs/reference#user-agent) and the rate-limit answer
// (https://discord.com/developers/docs/topics/rate-limits#exceeding-a-rate-limit).
import type { Deliverer } from '@hookwise/core';
import { VirtualClock } from '@hookwise/kit/platform';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import plugin, { discordPlatform, messageNonce, USER_AGENT, type ChannelApiOptions } from '@hookwise/plugin-deliverer-discord';

const TOKEN = 'MTA5ODc2NTQzMjEwOTg3NjU0.GhIjKl.abcdefghijklmnopqrstuvwxyz012345';
const HOOK_TOKEN = 'w3bh00k-t0ken-ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const HOME = '41771983423143936';
const CHANNEL = '41771983423143937';

let server: RecordingServer;
beforeEach(async () => {
  let next = 100;
  server = await startRecordingServer(() => ({ status: 200, json: { id: String(next++), channel_id: HOME, content: 'x' } }));
});
afterEach(() => server.close());

function setup(overrides: Partial<ChannelApiOptions> = {}) {
  const test = createTestPluginContext();
  const clock = new VirtualClock();
  const options: ChannelApiOptions = { api_base: server.url, token: TOKEN, home_channel: HOME, timeout_seconds: 5, ...overrides };
  const deliverer: Deliverer = discordPlatform.createDeliverer(options, test.ctx, { clock });
  return { ...test, deliverer, clock };
}

describe('discord (Discord)', () => {
  it('contributes discord (alias platform_02), which must be enabled', () => {
    expect(plugin.contributes).toEqual([discordPlatform]);
    expect([discordPlatform.id, discordPlatform.aliases]).toEqual(['discord', ['platform_02']]);
    expect(discordPlatform.requiresEnabled).toBe(true);
  });

  it('POSTs /api/v10/channels/{id}/messages with the bot token, the documented User-Agent and no pings', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage('deploy @everyone done', { chat_id: CHANNEL }), deliverOptions());
    const [req] = server.requests;
    expect([req.method, req.path]).toEqual(['POST', `/api/v10/channels/${CHANNEL}/messages`]);
    expect(req.headers.authorization).toBe(`Bot ${TOKEN}`);
    expect(req.headers['user-agent']).toBe(USER_AGENT);
    expect(USER_AGENT).toMatch(/^DiscordBot \(https:\/\/\S+, \d+\.\d+\.\d+\)$/);
    expect(req.headers['content-type']).toBe('application/json');
    // Create Message's dedupe: one nonce per part of this delivery to this destination, enforced.
    expect(req.json).toEqual({
      content: 'deploy @everyone done',
      allowed_mentions: { parse: [] },
      nonce: messageNonce({ route: 'test-route', deliveryId: 'delivery-1', destination: 'discord', index: 0 }),
      enforce_nonce: true,
    });
    expect((req.json as { nonce: string }).nonce.length).toBeLessThanOrEqual(25);
    expect(receipt).toEqual({ target: CHANNEL, ids: ['100'] });
  });

  it('falls back to home_channel', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests[0].path).toBe(`/api/v10/channels/${HOME}/messages`);
  });

  // Before: chat_id ".." was percent-encoded as itself and the URL parser resolved it: POST /api/v10/messages.
  it.each(['..', '.', `${CHANNEL}/../x`, `${CHANNEL}?x=1`, `${CHANNEL}#x`, '%2e%2e', 'general', '12345'])(
    'never lets chat_id %j change the request path',
    async (chatId) => {
      const { deliverer } = setup();
      const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: chatId }), deliverOptions()));
      expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
      expect(err.message).toContain('snowflake');
      expect(server.requests).toHaveLength(0);
    },
  );

  it('answers HTTP 200 without a message id is not a delivery', async () => {
    const { deliverer } = setup();
    server.queue({ status: 200, json: {} });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', false]);
  });

  it('does not follow a cross-origin 307 (it would replay the message and the token elsewhere)', async () => {
    const { deliverer } = setup();
    server.queue({ status: 307, headers: { location: 'https://attacker.example/api/v10/channels/1/messages' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_CONFIG', false]);
    expect(err.message).toContain('HTTP 307 redirect (Location https://attacker.example/api/v10/channels/1/messages)');
    expect(server.requests).toHaveLength(1);
  });

  it('paces the parts of a long answer at about 5 per 5 seconds per channel', async () => {
    const { deliverer, clock } = setup();
    await deliverer.deliver(deliveryMessage(Array.from({ length: 3 }, () => 'y'.repeat(1900)).join('\n\n')), deliverOptions());
    expect(server.requests).toHaveLength(3);
    expect(clock.waits).toEqual([1000, 1000]);
  });

  it('posts to a channel webhook with ?wait=true and needs no target', async () => {
    const { deliverer } = setup({ token: undefined, home_channel: undefined, webhook_url: `${server.url}/api/webhooks/123/${HOOK_TOKEN}` });
    const receipt = await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    const [req] = server.requests;
    expect([req.method, req.url]).toEqual(['POST', `/api/webhooks/123/${HOOK_TOKEN}?wait=true`]);
    expect(req.headers.authorization).toBeUndefined();
    expect(req.json).toEqual({ content: 'hi', allowed_mentions: { parse: [] } });
    expect(receipt).toEqual({ target: 'discord', ids: ['100'] });
    expect(req.headers['user-agent']).toBe(USER_AGENT);
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
    // The rate-limit response body of the rate-limits page, with a short wait.
    server.queue({
      status: 429,
      headers: { 'retry-after': '1', 'x-ratelimit-scope': 'user' },
      json: { message: 'You are being rate limited.', retry_after: 0.05, global: false },
    });
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

  // Before: the token of a webhook URL with a query string was never registered, so it showed in the request line.
  it('keeps the token of a webhook URL with a query string out of errors and logs', async () => {
    const { deliverer, logs } = setup({ token: undefined, home_channel: undefined, webhook_url: `${server.url}/api/webhooks/123/${HOOK_TOKEN}?thread_id=456` });
    server.queue({ status: 404, json: { message: 'Unknown Webhook', code: 10015 } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect(server.requests[0].url).toBe(`/api/webhooks/123/${HOOK_TOKEN}?thread_id=456&wait=true`);
    expect(err.code).toBe('HW_E_DELIVERY_AUTH');
    expect(err.message).toContain('/api/webhooks/123/[REDACTED]');
    expect(`${err.message}\n${logs.join('\n')}`).not.toContain(HOOK_TOKEN);
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
