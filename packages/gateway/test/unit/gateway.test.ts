// The gateway without HTTP: startup refusals, plugin errors, worker retries, dead letters and agent timeouts.
import { Writable } from 'node:stream';
import { Gateway } from '../../src/gateway';
import { HookwiseError, isHookwiseConfigError } from '@hookwise/core';
import { createLogger } from '../../src/observe/logger';
import { definePlugin } from '@hookwise/core';
import { validateConfigObject } from '../../src/config/load';
import type { Deliverer, DeliveryMessage } from '@hookwise/core';
import { backoffDelay } from '../../src/config/retry-policy';

function config(routes: Record<string, unknown>, more: Record<string, unknown> = {}) {
  return validateConfigObject({
    platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', routes } }, ...((more.platforms as object) ?? {}) },
    retry: { max_attempts: 3, base_delay_seconds: 0.01, max_delay_seconds: 0.02 },
    ...Object.fromEntries(Object.entries(more).filter(([k]) => k !== 'platforms')),
  });
}

function quietLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _e, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ stream, format: 'json', level: 'debug' }), lines };
}

/** A deliverer plugin whose behaviour the test scripts: each call shifts the next outcome. */
function scriptedDeliverer(outcomes: Array<'ok' | Error>, seen: DeliveryMessage[]) {
  return definePlugin({
    meta: { name: 'test-recorder', version: '1.0.0', api: 2 },
    contributes: [
      {
        kind: 'deliverer',
        id: 'recorder',
        create: (): Deliverer => ({
          async deliver(msg) {
            seen.push(msg);
            const next = outcomes.shift() ?? 'ok';
            if (next !== 'ok') throw next;
            return { target: 'memory' };
          },
        }),
      },
    ],
  });
}

async function waitFor<T>(fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('Gateway startup', () => {
  it('refuses, all at once, routes without secret, with bad names, unknown deliverers, INSECURE_NO_AUTH off loopback', async () => {
    const gw = new Gateway({
      config: config({ 'Bad Name': { secret: 'x'.repeat(20) }, nosecret: {}, where: { secret: 'x'.repeat(20), deliver: 'pigeon' } }),
      configDir: '/tmp',
      logger: quietLogger().logger,
    });
    const err = await gw.start().catch((e: unknown) => e);
    expect(isHookwiseConfigError(err)).toBe(true);
    const message = (err as Error).message;
    expect(message).toContain("route 'Bad Name': invalid route name");
    expect(message).toContain("route 'nosecret' has no secret");
    expect(message).toContain("route 'where': unknown deliver type 'pigeon'");
    const open = new Gateway({
      config: validateConfigObject({ platforms: { webhook: { extra: { host: '0.0.0.0', routes: { dev: { secret: 'INSECURE_NO_AUTH' } } } } } }),
      configDir: '/tmp',
      logger: quietLogger().logger,
    });
    await expect(open.start()).rejects.toThrow(/INSECURE_NO_AUTH while the gateway binds 0.0.0.0/);
  });

  it('refuses a route delivering to a platform deliverer that is not enabled', async () => {
    const platform = definePlugin({
      meta: { name: 'p', version: '1.0.0', api: 2 },
      contributes: [{ kind: 'deliverer', id: 'platform_99', requiresEnabled: true, create: () => ({ deliver: async () => ({}) }) }],
    });
    const gw = new Gateway({
      config: config({ a: { secret: 'x'.repeat(20), deliver: 'platform_99' } }),
      configDir: '/tmp',
      plugins: [{ plugin: platform, source: 'p', options: {} }],
      logger: quietLogger().logger,
    });
    await expect(gw.start()).rejects.toThrow("delivers to 'platform_99', which is not enabled: set platforms.platform_99.enabled: true");
  });

  it('refuses two plugins that contribute the same kind and id, naming both', () => {
    const a = scriptedDeliverer([], []);
    const b = { ...scriptedDeliverer([], []), meta: { name: 'other', version: '1', api: 2 } };
    expect(
      () =>
        new Gateway({
          config: config({}),
          configDir: '/tmp',
          plugins: [
            { plugin: a, source: 'a', options: {} },
            { plugin: b, source: 'b', options: {} },
          ],
        }),
    ).toThrow("deliverer 'recorder' is contributed twice: by test-recorder and by other");
  });

  it('validates platform options against the plugin schema and names the key path', async () => {
    const platform = definePlugin({
      meta: { name: 'p', version: '1.0.0', api: 2 },
      contributes: [
        {
          kind: 'deliverer',
          id: 'platform_98',
          requiresEnabled: true,
          optionsSchema: { type: 'object', required: ['token'], properties: { token: { type: 'string' } } },
          create: () => ({ deliver: async () => ({}) }),
        },
      ],
    });
    const gw = new Gateway({
      config: config({ a: { secret: 'x'.repeat(20), deliver: 'platform_98' } }, { platforms: { platform_98: { enabled: true } } }),
      configDir: '/tmp',
      plugins: [{ plugin: platform, source: 'p', options: {} }],
      logger: quietLogger().logger,
    });
    await expect(gw.start()).rejects.toThrow("platforms.platform_98: must have required property 'token'");
  });
});

describe('WorkerPool through the gateway', () => {
  const SECRET = 'INSECURE_NO_AUTH';

  async function gatewayWith(outcomes: Array<'ok' | Error>, extraConfig: Record<string, unknown> = {}, routeExtra: Record<string, unknown> = {}) {
    const seen: DeliveryMessage[] = [];
    const { logger, lines } = quietLogger();
    const gw = new Gateway({
      config: config({ r: { secret: SECRET, deliver: 'recorder', prompt: 'hi {name}', deliver_extra: { chat_id: '{chat}' }, ...routeExtra } }, extraConfig),
      configDir: '/tmp',
      plugins: [{ plugin: scriptedDeliverer(outcomes, seen), source: 'test', options: {} }],
      logger,
      pollMs: 20,
    });
    await gw.start();
    return { gw, seen, lines };
  }

  async function accept(gw: Gateway, payload: object) {
    const res = await gw.pipeline.handle({ route: 'r', headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(payload)) });
    expect(res.status).toBe(202);
    return String((res.body as Record<string, unknown>).delivery_id);
  }

  it('delivers the rendered answer with rendered deliver_extra', async () => {
    const { gw, seen } = await gatewayWith([]);
    const id = await accept(gw, { name: 'ada', chat: '-100' });
    const job = await waitFor(async () => (await gw.store.jobs.findByDeliveryId(id))?.status === 'done' || undefined);
    expect(job).toBe(true);
    expect(seen).toEqual([{ text: 'hi ada', route: 'r', event: '', deliveryId: id, extra: { chat_id: '-100' }, destination: 'recorder' }]);
    await gw.stop();
  });

  it('retries a retryable failure without re-running the agent, then succeeds', async () => {
    const { gw, seen } = await gatewayWith([new HookwiseError('HW_E_DELIVERY', 'down', { retryable: true }), 'ok']);
    const id = await accept(gw, { name: 'bo' });
    await waitFor(async () => (await gw.store.jobs.findByDeliveryId(id))?.status === 'done' || undefined);
    const job = await gw.store.jobs.findByDeliveryId(id);
    expect(seen).toHaveLength(2);
    expect(job?.errors).toHaveLength(1);
    expect(job?.errors[0]).toMatchObject({ step: 'deliver', attempt: 1, retryable: true });
    expect(job?.errors[0].message).toContain('down');
    expect(job?.answer).toBe('hi bo');
    await gw.stop();
  });

  it('keeps a job as a dead letter after max_attempts, and at once for a non-retryable error', async () => {
    const down = () => new HookwiseError('HW_E_DELIVERY', 'still down', { retryable: true });
    const { gw, seen, lines } = await gatewayWith([down(), down(), down()]);
    const id = await accept(gw, { name: 'cy' });
    const dead = await waitFor(async () => {
      const j = await gw.store.jobs.findByDeliveryId(id);
      return j?.status === 'dead' ? j : undefined;
    });
    expect(dead.errors.map((e) => e.attempt)).toEqual([1, 2, 3]);
    expect(seen).toHaveLength(3);
    expect(lines.join('')).toContain('kept as a dead letter');
    await gw.stop();

    const second = await gatewayWith([new HookwiseError('HW_E_DELIVERY_AUTH', 'bad token', { retryable: false })]);
    const id2 = await accept(second.gw, { name: 'di' });
    const dead2 = await waitFor(async () => {
      const j = await second.gw.store.jobs.findByDeliveryId(id2);
      return j?.status === 'dead' ? j : undefined;
    });
    expect(dead2.errors).toHaveLength(1);
    expect(dead2.errors[0].retryable).toBe(false);
    await second.gw.stop();
  });

  it('aborts an agent run that exceeds agent.timeout_seconds and retries it', async () => {
    let runs = 0;
    const slow = definePlugin({
      meta: { name: 'slow', version: '1', api: 2 },
      contributes: [
        {
          kind: 'agent',
          id: 'slow',
          create: () => ({
            run: async (_t, { signal }) => {
              runs += 1;
              if (runs === 1) await new Promise((r) => signal.addEventListener('abort', r));
              return { text: 'late but fine' };
            },
          }),
        },
      ],
    });
    const seen: DeliveryMessage[] = [];
    const gw = new Gateway({
      config: config({ r: { secret: SECRET, deliver: 'recorder' } }, { agent: { runner: 'slow', timeout_seconds: 0.1 } }),
      configDir: '/tmp',
      plugins: [
        { plugin: slow, source: 'slow', options: {} },
        { plugin: scriptedDeliverer([], seen), source: 'rec', options: {} },
      ],
      logger: quietLogger().logger,
      pollMs: 20,
    });
    await gw.start();
    const id = await accept(gw, {});
    const job = await waitFor(async () => {
      const j = await gw.store.jobs.findByDeliveryId(id);
      return j?.status === 'done' ? j : undefined;
    });
    expect(runs).toBe(2);
    expect(job.errors[0]).toMatchObject({ step: 'agent', retryable: true });
    expect(job.errors[0].message).toContain('agent run exceeded 0.1s');
    expect(seen[0].text).toBe('late but fine');
    await gw.stop();
  });

  it('grows the backoff exponentially with jitter inside [50%, 100%] and caps it', () => {
    const policy = { maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 5000 };
    expect(backoffDelay(1, policy, () => 1)).toBe(1000);
    expect(backoffDelay(2, policy, () => 1)).toBe(2000);
    expect(backoffDelay(3, policy, () => 0)).toBe(2000);
    expect(backoffDelay(10, policy, () => 1)).toBe(5000);
  });
});
