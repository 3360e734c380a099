// What every platform gets from definePlatform: no redirects followed, success answers checked, targets checked
// and limited by allowed_targets, a cap on parts, pacing on an injectable clock, progress behind ProgressStore,
// and plugin log lines scrubbed.
import type { PluginContext } from '@hookwise/core';
import { MemoryProgressStore } from '../../src/platform/progress';
import { Pacer, systemClock } from '../../src/platform/pacing';
import {
  VirtualClock,
  chunkText,
  definePlatform,
  joinUrl,
  pathSegment,
  platformOptionsSchema,
  type DeliveryProgress,
  type PlatformOptions,
  type ProgressStore,
} from '@hookwise/kit/platform';
import { capParts } from '../../src/platform/chunk';
import { truncationNotice } from '../../src/platform/define-platform';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';

interface Options extends PlatformOptions {
  api_base: string;
  key: string;
}
const KEY = 'k3y-s3cret-value-0123';

const platform = definePlatform<Options>({
  id: 'example',
  aliases: ['platform_99'],
  title: 'Example',
  limit: 100,
  maxParts: 3,
  paceMs: (target) => (target.startsWith('g') ? 3000 : 1000),
  optionsSchema: platformOptionsSchema({ properties: { key: { type: 'string' } }, required: ['key'] }),
  secrets: (o) => [o.key],
  credentialsHint: 'check platforms.example.key',
  targets: { format: 'u<digits> or g<digits>', check: (t) => (/^[ug]\d{1,10}$/.test(t) ? undefined : 'it is not an example id') },
  request: (chunk, o) => ({
    method: 'POST',
    url: joinUrl(o.api_base, `/chats/${pathSegment(chunk.target, 'example')}/send`, { key: o.key }),
    json: { text: chunk.text },
  }),
  success: { describe: 'an id', test: (res) => typeof (res.json as { id?: unknown } | undefined)?.id === 'string' },
  messageId: (res) => (res.json as { id: string }).id,
  async start({ call, logger, options }) {
    await call({ url: joinUrl(options.api_base, '/me', { key: options.key }) });
    // A careless plugin: the kit must scrub what it logs.
    logger.info(`connected with key ${options.key} (${encodeURIComponent(options.key)})`);
  },
});

let server: RecordingServer;
let other: RecordingServer;
beforeEach(async () => {
  server = await startRecordingServer((req, i) => ({ json: { id: `m${i + 1}` } }));
  other = await startRecordingServer(() => ({ json: { id: 'elsewhere' } }));
});
afterEach(async () => {
  await server.close();
  await other.close();
});

function setup(overrides: Partial<Options> = {}, extra: { progress?: ProgressStore; clock?: VirtualClock } = {}) {
  const test = createTestPluginContext();
  const clock = extra.clock ?? new VirtualClock();
  const deliverer = platform.createDeliverer({ api_base: server.url, key: KEY, home_channel: 'u1', timeout_seconds: 5, ...overrides }, test.ctx, {
    clock,
    progress: extra.progress,
  });
  return { ...test, deliverer, clock };
}

const threeParts = ['a', 'b', 'c'].map((c) => `${c} `.repeat(40)).join('\n\n');

describe('definePlatform: names', () => {
  it('contributes the real name with its aliases', () => {
    expect([platform.id, platform.aliases, platform.kind]).toEqual(['example', ['platform_99'], 'deliverer']);
  });

  it('refuses a request() platform that states no success answer', () => {
    expect(() =>
      definePlatform<Options>({
        id: 'x',
        title: 'X',
        limit: 100,
        optionsSchema: {},
        secrets: () => [],
        credentialsHint: '',
        request: () => ({ url: 'http://x' }),
      }),
    ).toThrow(/must state its success answer/);
  });
});

describe('definePlatform: redirects', () => {
  it.each([301, 302, 303, 307, 308])('does not follow a %i: a configuration error naming the Location, nothing sent there', async (status) => {
    const { deliverer } = setup();
    server.queue({ status, headers: { location: `${other.url}/chats/u1/send?key=${KEY}` } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_CONFIG', false]);
    expect(err.message).toContain(`HTTP ${status} redirect (Location ${other.url}/chats/u1/send?...)`);
    expect(err.message).not.toContain(KEY);
    expect(other.requests).toHaveLength(0);
  });

  it('refuses a redirect answer to start() as well', async () => {
    const { deliverer } = setup();
    server.queue({ status: 308, headers: { location: '/elsewhere' } });
    const err = await rejectionOf(deliverer.start!());
    expect(err.code).toBe('HW_E_CONFIG');
    expect(err.message).toContain(`Location ${server.url}/elsewhere`);
  });
});

describe('definePlatform: success answers', () => {
  it("fails a 2xx that is not the platform's success answer, without retry", async () => {
    const { deliverer } = setup();
    server.queue({ status: 204 });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', false]);
    expect(err.message).toContain('HTTP 204 without an id');
  });
});

describe('definePlatform: targets', () => {
  it.each(['..', 'u1/../x', 'u1\nBcc: x', 'u'.repeat(600), 'x1'])('refuses %j before any request', async (chatId) => {
    const { deliverer } = setup();
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: chatId }), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(err.message).toMatch(/^example \(Example\): refused target ".*" from deliver_extra\.chat_id: .*Expected u<digits> or g<digits>; not retried$/s);
    expect(server.requests).toHaveLength(0);
  });

  it('pathSegment refuses dot segments, which percent-encoding would leave for the URL parser to resolve', () => {
    expect(() => pathSegment('..', 'x')).toThrow(/would change the request path/);
    expect(() => pathSegment('.', 'x')).toThrow();
    expect(pathSegment('a/../b?c#d', 'x')).toBe('a%2F..%2Fb%3Fc%23d');
  });

  it('limits a chat_id to allowed_targets (exact or /regex/ over the whole id); home_channel is always allowed', async () => {
    const { deliverer } = setup({ allowed_targets: ['u7', '/g1\\d/'] });
    await deliverer.deliver(deliveryMessage('a', { chat_id: 'u7' }), deliverOptions());
    await deliverer.deliver(deliveryMessage('b', { chat_id: 'g12' }, 'd2'), deliverOptions());
    await deliverer.deliver(deliveryMessage('c', {}, 'd3'), deliverOptions());
    for (const id of ['u8', 'g123', 'xg12']) {
      const err = await rejectionOf(deliverer.deliver(deliveryMessage('d', { chat_id: id }, 'd4'), deliverOptions()));
      expect(err.code).toBe('HW_E_DELIVERY_TARGET');
    }
    expect(server.requests.map((r) => r.path)).toEqual(['/chats/u7/send', '/chats/g12/send', '/chats/u1/send']);
  });

  it('reports an allowed_targets pattern that does not compile at startup', () => {
    expect(() => setup({ allowed_targets: ['/(unclosed/'] })).toThrow(/platforms\.example\.allowed_targets: "\/\(unclosed\/" is not a valid pattern/);
  });
});

describe('definePlatform: max_parts and pacing', () => {
  it('sends at most max_parts (the platform default, or the option), the last ending with the notice', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage(Array.from({ length: 6 }, (_, i) => `${i} `.repeat(45)).join('\n\n')), deliverOptions());
    const texts = server.requests.map((r) => (r.json as { text: string }).text);
    expect(texts).toHaveLength(3);
    expect(texts[2].endsWith(truncationNotice(6, 3))).toBe(true);
    for (const t of texts) expect(t.length).toBeLessThanOrEqual(100);
    expect(receipt.truncated).toEqual({ parts: 6, sent: 3 });
    const one = setup({ max_parts: 1 });
    await one.deliverer.deliver(deliveryMessage(threeParts, {}, 'd2'), deliverOptions());
    expect(server.requests).toHaveLength(4);
  });

  it('capParts keeps the truncated last part within the limit with its fences balanced', () => {
    const text = `\`\`\`ts\n${Array.from({ length: 40 }, (_, i) => `const v${i} = ${i};`).join('\n')}\n\`\`\``;
    const { parts, total } = capParts(chunkText(text, 120), 2, 120, truncationNotice);
    expect(total).toBeGreaterThan(2);
    expect(parts).toHaveLength(2);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(120);
      expect((p.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
  });

  it("paces parts per chat at the platform's rate, and across deliveries to the same chat", async () => {
    const { deliverer, clock } = setup();
    await deliverer.deliver(deliveryMessage(threeParts, { chat_id: 'g5' }), deliverOptions());
    expect(clock.waits).toEqual([3000, 3000]);
    // A second answer to the same chat right after: its first part waits for the slot after the last one.
    await deliverer.deliver(deliveryMessage('again', { chat_id: 'g5' }, 'd2'), deliverOptions());
    expect(clock.waits).toEqual([3000, 3000, 3000]);
    // Another chat has its own pace.
    await deliverer.deliver(deliveryMessage(threeParts, { chat_id: 'u9' }, 'd3'), deliverOptions());
    expect(clock.waits.slice(3)).toEqual([1000, 1000]);
  });

  it('a shutdown aborts a pacing wait at once, and the delivery is retried later', async () => {
    const controller = new AbortController();
    const test = createTestPluginContext();
    const deliverer = platform.createDeliverer({ api_base: server.url, key: KEY, home_channel: 'g1', timeout_seconds: 5, max_parts: 3 }, test.ctx, {
      clock: systemClock,
    });
    // Real clock, 3-second pace: the second part would wait; abort while it does.
    const pending = deliverer.deliver(deliveryMessage(threeParts), { signal: controller.signal, attempt: 1 });
    setTimeout(() => controller.abort(new Error('shutdown')), 50);
    const started = Date.now();
    const err = await rejectionOf(pending);
    expect(Date.now() - started).toBeLessThan(2000);
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', true]);
    expect(err.message).toContain('cancelled while waiting to send part 2/3');
    expect(server.requests).toHaveLength(1);
  });

  it('Pacer books slots in order for concurrent callers', async () => {
    const clock = new VirtualClock(1000);
    const pacer = new Pacer(clock);
    const signal = new AbortController().signal;
    const waited = await Promise.all([pacer.wait('c', 500, signal), pacer.wait('c', 500, signal), pacer.wait('c', 500, signal), pacer.wait('d', 500, signal)]);
    expect(waited).toEqual([0, 500, 1000, 0]);
  });
});

describe('definePlatform: progress', () => {
  /** A store like a persistent one would be: outlives the deliverer, records what it is asked. */
  class RecordingStore implements ProgressStore {
    readonly data = new Map<string, DeliveryProgress>();
    readonly calls: string[] = [];
    async load(key: string) {
      this.calls.push(`load ${key}`);
      const found = this.data.get(key);
      return found && structuredClone(found);
    }
    async save(key: string, progress: DeliveryProgress) {
      this.calls.push(`save ${key} ${progress.ids.length}`);
      this.data.set(key, structuredClone(progress));
    }
    async clear(key: string) {
      this.calls.push(`clear ${key}`);
      this.data.delete(key);
    }
  }

  it('keeps progress in the given store under platform, route and delivery id; a new deliverer on that store resumes', async () => {
    const store = new RecordingStore();
    const first = setup({}, { progress: store });
    server.queue({ json: { id: 'p1' } }, { status: 503, body: 'down' });
    await rejectionOf(first.deliverer.deliver(deliveryMessage(threeParts), deliverOptions()));
    expect([...store.data.keys()]).toEqual(['example\ntest-route\ndelivery-1']);
    // As after a restart: another deliverer, the same store.
    const second = setup({}, { progress: store });
    const receipt = await second.deliverer.deliver(deliveryMessage(threeParts), deliverOptions(2));
    expect(server.requests.map((r) => (r.json as { text: string }).text[0])).toEqual(['a', 'b', 'b', 'c']);
    expect(receipt.ids).toEqual(['p1', 'm3', 'm4']);
    expect(store.data.size).toBe(0);
    expect(store.calls.at(-1)).toBe('clear example\ntest-route\ndelivery-1');
  });

  it('MemoryProgressStore hands out copies', async () => {
    const store = new MemoryProgressStore();
    const progress: DeliveryProgress = { ids: ['a'], already: [], partial: [] };
    await store.save('k', progress);
    progress.ids.push('b');
    expect((await store.load('k'))!.ids).toEqual(['a']);
  });
});

describe('definePlatform: logging', () => {
  it('scrubs what a plugin hook logs', async () => {
    const { deliverer, logs } = setup();
    await deliverer.start!();
    expect(logs.join('\n')).toContain('connected with key [REDACTED] ([REDACTED])');
    expect(logs.join('\n')).not.toContain(KEY);
  });

  it('registers every form of a secret with the gateway redactor', () => {
    const test = createTestPluginContext();
    const ctx: PluginContext = test.ctx;
    platform.create({ api_base: 'http://x', key: 'a b+c/d' }, ctx);
    expect(test.redacted).toEqual(expect.arrayContaining(['a b+c/d', 'a%20b%2Bc%2Fd', 'a+b%2Bc%2Fd']));
  });
});
