// Wire format from the Bot API reference (https://core.telegram.org/bots/api#making-requests,
// https://core.telegram.org/bots/api#sendmessage): answers are {ok, result} or {ok:false, error_code,
// description, parameters}; rates from the Bots FAQ (https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this).
import { isHookwiseError, type Deliverer, type HookwiseError } from '@hookwise/core';
import { VirtualClock } from '@hookwise/kit/platform';
import { createTestPluginContext, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import plugin, { telegramPlatform, type BotApiOptions } from '@hookwise/plugin-deliverer-telegram';

const TOKEN = '123456789:AAEhBOweik6ad9r_QXMENQjcrGbqCr4K-ra';
const ok = (id: number) => ({ status: 200, json: { ok: true, result: { message_id: id, chat: { id: -100200 }, text: 'x' } } });

let server: RecordingServer;
beforeEach(async () => {
  let next = 1;
  server = await startRecordingServer(() => ok(next++));
});
afterEach(() => server.close());

function setup(overrides: Partial<BotApiOptions> = {}) {
  const test = createTestPluginContext();
  const clock = new VirtualClock();
  const options: BotApiOptions = { token: TOKEN, api_base: server.url, timeout_seconds: 5, home_channel: '-100200', ...overrides };
  const deliverer: Deliverer = telegramPlatform.createDeliverer(options, test.ctx, { clock });
  return { ...test, deliverer, clock };
}

const message = (text: string, extra: Record<string, string> = {}) => ({ text, route: 'ci', event: 'push', deliveryId: 'd-1', extra });
const opts = { signal: new AbortController().signal, attempt: 1 };

async function failure(p: Promise<unknown>): Promise<HookwiseError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isHookwiseError(err)) throw new Error(`expected a HookwiseError, got ${String(err)}`);
  return err;
}

describe('telegram (Telegram Bot API)', () => {
  it('is a plugin contributing the telegram deliverer (alias platform_01) that must be enabled', () => {
    expect(plugin.contributes.map((c) => [c.kind, c.id, c.aliases])).toEqual([['deliverer', 'telegram', ['platform_01']]]);
    expect(telegramPlatform.requiresEnabled).toBe(true);
  });

  it('POSTs sendMessage to /bot<token>/ with chat_id, text and the forum topic from thread_id', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(message('Build **green**', { chat_id: '-100777', thread_id: '42' }), opts);
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req.method).toBe('POST');
    expect(req.path).toBe(`/bot${TOKEN}/sendMessage`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.json).toEqual({ chat_id: -100777, text: 'Build **green**', message_thread_id: 42 });
    expect(receipt).toEqual({ target: '-100777', ids: ['1'] });
  });

  it('prefers message_thread_id over its alias and keeps @channel names as strings', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(message('hi', { chat_id: '@releases', message_thread_id: '7', thread_id: '9' }), opts);
    expect(server.requests[0].json).toEqual({ chat_id: '@releases', text: 'hi', message_thread_id: 7 });
  });

  it('falls back to home_channel when the route gives no chat_id, and sends no topic', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(message('hello'), opts);
    expect(server.requests[0].json).toEqual({ chat_id: -100200, text: 'hello' });
    expect(receipt.target).toBe('-100200');
  });

  it('refuses without a request when there is neither chat_id nor home_channel', async () => {
    const { deliverer } = setup({ home_channel: undefined });
    const err = await failure(deliverer.deliver(message('hello'), opts));
    expect(err.code).toBe('HW_E_DELIVERY_TARGET');
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/deliver_extra\.chat_id.*platforms\.telegram\.home_channel/);
    expect(server.requests).toHaveLength(0);
  });

  it('splits answers longer than 4096 characters into several messages, in order', async () => {
    const { deliverer } = setup();
    const paragraph = 'word '.repeat(199).trim(); // 994 characters
    const text = Array.from({ length: 9 }, (_, i) => `${i}: ${paragraph}`).join('\n\n');
    const receipt = await deliverer.deliver(message(text), opts);
    const texts = server.requests.map((r) => (r.json as { text: string }).text);
    expect(texts.length).toBe(3);
    for (const t of texts) expect(t.length).toBeLessThanOrEqual(4096);
    expect(texts.join('\n\n')).toBe(text);
    expect(receipt.ids).toEqual(['1', '2', '3']);
  });

  it('waits the retry_after of a 429 and sends again within the same delivery', async () => {
    const { deliverer } = setup();
    server.queue({ status: 429, json: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } } });
    const receipt = await deliverer.deliver(message('hello'), opts);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1].json).toEqual(server.requests[0].json);
    expect(receipt.ids).toEqual(['1']);
  });

  it('hands a long retry_after back to the worker as a retryable error with the hint', async () => {
    const { deliverer } = setup();
    server.queue({ status: 429, json: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 120', parameters: { retry_after: 120 } } });
    const err = await failure(deliverer.deliver(message('hello'), opts));
    expect(err.retryable).toBe(true);
    expect(err.retryAfterSeconds).toBe(120);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a 401 and says which key to fix, without the token', async () => {
    const { deliverer, logs } = setup();
    server.queue({ status: 401, json: { ok: false, error_code: 401, description: 'Unauthorized' } });
    const err = await failure(deliverer.deliver(message('hello'), opts));
    expect(err.code).toBe('HW_E_DELIVERY_AUTH');
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('platforms.telegram.token');
    expect(err.message).toContain('/bot[REDACTED]/sendMessage');
    expect(err.message).not.toContain(TOKEN);
    expect(server.requests).toHaveLength(1);
    expect(logs.join('\n')).not.toContain(TOKEN);
  });

  it('treats "chat not found" as a bad target that is not retried', async () => {
    const { deliverer } = setup();
    server.queue({ status: 400, json: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } });
    const err = await failure(deliverer.deliver(message('hello', { chat_id: '1' }), opts));
    expect(err.code).toBe('HW_E_DELIVERY_TARGET');
    expect(err.retryable).toBe(false);
  });

  it('resumes after the chunks already sent when a failed delivery is retried', async () => {
    const { deliverer } = setup();
    const text = `${'a '.repeat(1500)}\n\n${'b '.repeat(1500)}`;
    server.queue(ok(10), { status: 502, body: 'Bad Gateway' });
    const err = await failure(deliverer.deliver(message(text), opts));
    expect(err.retryable).toBe(true);
    const receipt = await deliverer.deliver(message(text), { ...opts, attempt: 2 });
    const texts = server.requests.map((r) => (r.json as { text: string }).text[0]);
    expect(texts).toEqual(['a', 'b', 'b']);
    expect(receipt.ids).toEqual(['10', '1']);
  });

  it('registers the token for redaction and never logs it, even in URLs', async () => {
    const { deliverer, redacted, logs } = setup();
    await deliverer.deliver(message('hello'), opts);
    await deliverer.start!();
    expect(redacted).toContain(TOKEN);
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.join('\n')).not.toContain(TOKEN);
    expect(logs.join('\n')).not.toContain(encodeURIComponent(TOKEN));
  });

  it('counts a 2xx without ok: true and result.message_id as a failure, not a delivery', async () => {
    const { deliverer } = setup();
    server.queue({ status: 200, body: '<html>captive portal</html>', headers: { 'content-type': 'text/html' } });
    const err = await failure(deliverer.deliver(message('hello'), opts));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', false]);
    expect(err.message).toContain('without ok: true with result.message_id');
  });

  it('does not follow a redirect: a configuration error naming the Location, without the token', async () => {
    const { deliverer } = setup();
    server.queue({ status: 301, headers: { location: `https://elsewhere.example/bot${TOKEN}/sendMessage?x=1` } });
    const err = await failure(deliverer.deliver(message('hello'), opts));
    expect([err.code, err.retryable]).toEqual(['HW_E_CONFIG', false]);
    expect(err.message).toContain('Location https://elsewhere.example/bot[REDACTED]/sendMessage?...');
    expect(err.message).not.toContain(TOKEN);
    expect(server.requests).toHaveLength(1);
  });

  it.each(['..', '-100/../1', '@x?y=1', '12#3', 'chat', '@ab', '1\n2', 'https://t.me/x'])('refuses chat_id %j before sending', async (chatId) => {
    const { deliverer } = setup();
    const err = await failure(deliverer.deliver(message('hello', { chat_id: chatId }), opts));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(err.message).toContain('numeric chat id');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a forum topic id that is not a number', async () => {
    const { deliverer } = setup();
    const err = await failure(deliverer.deliver(message('hello', { chat_id: '-100777', thread_id: '1/../2' }), opts));
    expect(err.code).toBe('HW_E_DELIVERY_TARGET');
    expect(server.requests).toHaveLength(0);
  });

  it('lets a templated chat_id reach only allowed_targets; home_channel is always allowed', async () => {
    const { deliverer } = setup({ allowed_targets: ['-100777', '/@team_[a-z]+/'] });
    await deliverer.deliver(message('a', { chat_id: '-100777' }), opts);
    await deliverer.deliver(message('b', { chat_id: '@team_ops' }), { ...opts });
    await deliverer.deliver(message('c'), opts);
    const err = await failure(deliverer.deliver(message('d', { chat_id: '-100999' }), opts));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(err.message).toContain('not in platforms.telegram.allowed_targets');
    expect(server.requests.map((r) => (r.json as { chat_id: unknown }).chat_id)).toEqual([-100777, '@team_ops', -100200]);
  });

  it('paces parts at 20 per minute in a group and one per second in a private chat', async () => {
    const text = `${'a '.repeat(2000)}\n\n${'b '.repeat(2000)}\n\n${'c '.repeat(2000)}`;
    const group = setup();
    await group.deliverer.deliver(message(text, { chat_id: '-100777' }), opts);
    expect(group.clock.waits).toEqual([3000, 3000]);
    const direct = setup();
    await direct.deliverer.deliver(message(text, { chat_id: '123456' }), opts);
    expect(direct.clock.waits).toEqual([1000, 1000]);
  });

  it('sends at most max_parts messages, the last ending with a truncation notice', async () => {
    const { deliverer } = setup({ max_parts: 2 });
    const text = Array.from({ length: 5 }, (_, i) => `${i} ${'x '.repeat(1500)}`).join('\n\n');
    const receipt = await deliverer.deliver(message(text), opts);
    const texts = server.requests.map((r) => (r.json as { text: string }).text);
    expect(texts).toHaveLength(2);
    expect(texts[1]).toMatch(/\[Answer truncated: it had 5 parts, only the first 2 were sent \(max_parts\)\.\]$/);
    for (const t of texts) expect(t.length).toBeLessThanOrEqual(4096);
    expect(receipt.truncated).toEqual({ parts: 5, sent: 2 });
  });

  describe('start()', () => {
    it('calls getMe with the token', async () => {
      const { deliverer, logs } = setup();
      server.queue({ status: 200, json: { ok: true, result: { id: 1, is_bot: true, username: 'ci_bot' } } });
      await deliverer.start!();
      expect(server.requests.map((r) => [r.method, r.path])).toEqual([['GET', `/bot${TOKEN}/getMe`]]);
      expect(logs.join('\n')).toContain('@ci_bot');
    });

    it('fails for good when the token is rejected', async () => {
      const { deliverer } = setup();
      server.queue({ status: 401, json: { ok: false, error_code: 401, description: 'Unauthorized' } });
      const err = await failure(deliverer.start!());
      expect(err.code).toBe('HW_E_DELIVERY_AUTH');
      expect(err.retryable).toBe(false);
    });

    it('reports an unreachable API as retryable, without the token', async () => {
      const closed = await startRecordingServer();
      const url = closed.url;
      await closed.close();
      const { deliverer } = setup({ api_base: url });
      const err = await failure(deliverer.start!());
      expect(err.retryable).toBe(true);
      expect(err.message).toMatch(/could not reach GET http:\/\/127\.0\.0\.1:\d+\/bot\[REDACTED\]\/getMe/);
      expect(err.message).not.toContain(TOKEN);
    });
  });
});
