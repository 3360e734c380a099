// Lifecycle events: the emitter itself, and what the pipeline and the workers of a real (in-process) gateway report.
import { createHmac } from 'node:crypto';
import { Writable } from 'node:stream';
import { definePlugin, HookwiseError, type Deliverer } from '@hookwise/core';
import { validateConfigObject } from '../../src/config/load';
import { Gateway } from '../../src/gateway';
import { Lifecycle, LIFECYCLE_EVENTS, type LifecycleEventName, type LifecycleEvents } from '../../src/observe/lifecycle';
import { createLogger } from '../../src/observe/logger';
import genericSource from '@hookwise/plugin-source-generic';

const SECRET = 'lifecycle-test-secret-0123456789';

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

/** An agent that reports token usage, and a deliverer whose outcomes the test scripts. */
function testPlugin(outcomes: Array<'ok' | Error>) {
  return definePlugin({
    meta: { name: 'lifecycle-test', version: '1.0.0', api: 2 },
    contributes: [
      {
        kind: 'agent',
        id: 'counting',
        create: () => ({ run: async (task) => ({ text: `answer to ${task.prompt}`, usage: { inputTokens: 12, outputTokens: 5 } }) }),
      },
      {
        kind: 'deliverer',
        id: 'scripted',
        create: (): Deliverer => ({
          async deliver() {
            const next = outcomes.shift() ?? 'ok';
            if (next !== 'ok') throw next;
            return { target: 'test', ids: ['m1'] };
          },
        }),
      },
    ],
  });
}

function gatewayWith(outcomes: Array<'ok' | Error> = []) {
  const config = validateConfigObject({
    platforms: {
      webhook: {
        enabled: true,
        extra: { host: '127.0.0.1', routes: { ci: { secret: SECRET, events: ['push'], deliver: 'scripted', prompt: 'event {ref}' } } },
      },
    },
    agent: { runner: 'counting' },
    retry: { max_attempts: 2, base_delay_seconds: 0.01, max_delay_seconds: 0.02 },
  });
  return new Gateway({
    config,
    configDir: '/tmp',
    logger: quietLogger().logger,
    plugins: [
      { plugin: genericSource, source: '@hookwise/plugin-source-generic', options: {} },
      { plugin: testPlugin(outcomes), source: 'test', options: {} },
    ],
    pollMs: 20,
  });
}

/** Records every lifecycle event, in order. */
function record(gw: Gateway) {
  const seen: Array<{ name: LifecycleEventName; event: LifecycleEvents[LifecycleEventName] }> = [];
  for (const name of LIFECYCLE_EVENTS) gw.on(name, (event) => seen.push({ name, event }));
  return seen;
}

const post = (gw: Gateway, route: string, body: string, headers: Record<string, string> = {}) =>
  gw.pipeline.handle({
    route,
    headers: { 'content-type': 'application/json', 'x-webhook-signature': createHmac('sha256', SECRET).update(body).digest('hex'), ...headers },
    body: Buffer.from(body),
  });

async function until<T>(check: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('Lifecycle', () => {
  it('tells whether anyone listens, and stops calling a listener once it is removed', () => {
    const life = new Lifecycle();
    const calls: string[] = [];
    expect(life.has('accepted')).toBe(false);
    const stop = life.on('accepted', (e) => calls.push(e.jobId));
    expect(life.has('accepted')).toBe(true);
    expect(life.listenerCount('accepted')).toBe(1);
    life.emit('accepted', { route: 'r', jobId: 'j1', deliveryId: 'd', event: 'push', headers: {}, receivedAt: 0 });
    stop();
    life.emit('accepted', { route: 'r', jobId: 'j2', deliveryId: 'd', event: 'push', headers: {}, receivedAt: 0 });
    expect(calls).toEqual(['j1']);
    expect(life.has('accepted')).toBe(false);
  });

  it('reports a throwing listener to onError and still calls the others', () => {
    const errors: string[] = [];
    const life = new Lifecycle((name, err) => errors.push(`${name}: ${(err as Error).message}`));
    const calls: string[] = [];
    life.on('ignored', () => {
      throw new Error('listener broke');
    });
    life.on('ignored', (e) => calls.push(e.event));
    expect(() => life.emit('ignored', { route: 'r', deliveryId: 'd', event: 'star', headers: {}, receivedAt: 0 })).not.toThrow();
    expect(calls).toEqual(['star']);
    expect(errors).toEqual(['ignored: listener broke']);
  });

  it('refuses an event name it does not know, naming the ones it does', () => {
    expect(() => new Lifecycle().on('deliverd' as LifecycleEventName, () => undefined)).toThrow(
      /unknown lifecycle event 'deliverd'; known: accepted, rejected/,
    );
  });
});

describe('what a gateway emits', () => {
  let gw: Gateway | undefined;
  afterEach(async () => {
    await gw?.stop(1000);
    gw = undefined;
  });

  it('reports accepted, duplicate, ignored and each kind of refusal with its reason and source', async () => {
    gw = gatewayWith();
    const seen = record(gw);
    await gw.start();
    const body = JSON.stringify({ event_type: 'push', ref: 'main' });
    expect((await post(gw, 'ci', body, { 'x-request-id': 'd-1', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' })).status).toBe(202);
    expect((await post(gw, 'ci', body, { 'x-request-id': 'd-1' })).status).toBe(200);
    const star = JSON.stringify({ event_type: 'star' });
    expect((await post(gw, 'ci', star, { 'x-request-id': 'd-2' })).body).toEqual({ status: 'ignored', event: 'star' });
    expect((await post(gw, 'nope', body)).status).toBe(404);
    expect((await post(gw, 'ci', body, { 'x-webhook-signature': '00'.repeat(32) })).status).toBe(401);
    const unsigned = await gw.pipeline.handle({ route: 'ci', headers: { 'content-type': 'application/json' }, body: Buffer.from(body) });
    expect(unsigned.status).toBe(401);
    expect((await post(gw, 'ci', 'not json')).status).toBe(400);

    const requestEvents = seen.filter((s) => ['accepted', 'duplicate', 'ignored', 'rejected'].includes(s.name));
    expect(requestEvents.map((s) => s.name)).toEqual(['accepted', 'duplicate', 'ignored', 'rejected', 'rejected', 'rejected', 'rejected']);
    const accepted = requestEvents[0].event as LifecycleEvents['accepted'];
    expect(accepted).toMatchObject({ route: 'ci', deliveryId: 'd-1', event: 'push', jobId: expect.any(String) });
    expect(accepted.headers.traceparent).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(requestEvents[1].event).toMatchObject({ route: 'ci', deliveryId: 'd-1', event: 'push' });
    expect(requestEvents[2].event).toMatchObject({ route: 'ci', deliveryId: 'd-2', event: 'star' });
    const refusals = requestEvents.slice(3).map((s) => s.event as LifecycleEvents['rejected']);
    expect(refusals.map(({ route, knownRoute, status, reason, source }) => ({ route, knownRoute, status, reason, source }))).toEqual([
      { route: 'nope', knownRoute: false, status: 404, reason: 'unknown_route', source: undefined },
      { route: 'ci', knownRoute: true, status: 401, reason: 'invalid_signature', source: 'generic' },
      { route: 'ci', knownRoute: true, status: 401, reason: 'missing_signature', source: 'none' },
      { route: 'ci', knownRoute: true, status: 400, reason: 'bad_body', source: undefined },
    ]);
  });

  it('reports the agent run with its runner, duration and token usage, then the delivery with its receipt', async () => {
    gw = gatewayWith(['ok']);
    const seen = record(gw);
    await gw.start();
    const body = JSON.stringify({ event_type: 'push', ref: 'main' });
    const answer = await post(gw, 'ci', body, { 'x-request-id': 'run-1' });
    expect(answer.status).toBe(202);
    const delivered = await until(() => seen.find((s) => s.name === 'delivered')?.event as LifecycleEvents['delivered'] | undefined);
    const jobEvents = seen.filter((s) => ['agent_started', 'agent_finished', 'delivered'].includes(s.name));
    expect(jobEvents.map((s) => s.name)).toEqual(['agent_started', 'agent_finished', 'delivered']);
    expect(jobEvents[0].event).toMatchObject({ route: 'ci', deliveryId: 'run-1', event: 'push', runner: 'counting', attempt: 1 });
    const finished = jobEvents[1].event as LifecycleEvents['agent_finished'];
    expect(finished).toMatchObject({ runner: 'counting', outcome: 'ok', usage: { inputTokens: 12, outputTokens: 5 } });
    expect(finished.durationMs).toBeGreaterThanOrEqual(0);
    expect(delivered).toMatchObject({ route: 'ci', destination: 'scripted', attempt: 1, receipt: { target: 'test', ids: ['m1'] } });
    expect(delivered.jobId).toBe((seen[0].event as LifecycleEvents['accepted']).jobId);
  });

  it('reports a failed delivery as a scheduled retry, then as a dead letter, each with its destination and error', async () => {
    gw = gatewayWith([
      new HookwiseError('HW_E_DELIVERY', 'chat service answered 502', { retryable: true }),
      new HookwiseError('HW_E_DELIVERY', 'chat service answered 502 again', { retryable: true }),
    ]);
    const seen = record(gw);
    await gw.start();
    const body = JSON.stringify({ event_type: 'push', ref: 'main' });
    expect((await post(gw, 'ci', body, { 'x-request-id': 'fail-1' })).status).toBe(202);
    const dead = await until(() => seen.find((s) => s.name === 'dead_lettered')?.event as LifecycleEvents['dead_lettered'] | undefined);
    const retry = seen.find((s) => s.name === 'retry_scheduled')?.event as LifecycleEvents['retry_scheduled'];
    expect(retry).toMatchObject({ step: 'deliver', attempt: 1, maxAttempts: 2, destination: 'scripted', error: 'chat service answered 502', retryable: true });
    expect(retry.delayMs).toBeGreaterThanOrEqual(0);
    expect(dead).toMatchObject({ step: 'deliver', attempt: 2, destination: 'scripted', error: 'chat service answered 502 again' });
    // Only one agent run: the answer was saved before the first delivery attempt.
    expect(seen.filter((s) => s.name === 'agent_finished')).toHaveLength(1);
    expect((await gw.store.jobs.get(dead.jobId))?.status).toBe('dead');
  });

  it('builds no event while nobody listens (the listener check comes first)', async () => {
    gw = gatewayWith();
    await gw.start();
    const built: string[] = [];
    // A getter on the request's headers would be read by any event object built from it.
    const headers = { 'content-type': 'application/json', 'x-webhook-signature': createHmac('sha256', SECRET).update('{"event_type":"push"}').digest('hex') };
    const original = gw.lifecycle.emit.bind(gw.lifecycle);
    gw.lifecycle.emit = ((name: LifecycleEventName, event: never) => {
      built.push(name);
      original(name, event);
    }) as typeof gw.lifecycle.emit;
    expect((await gw.pipeline.handle({ route: 'ci', headers, body: Buffer.from('{"event_type":"push"}') })).status).toBe(202);
    expect((await gw.pipeline.handle({ route: 'nope', headers, body: Buffer.from('{}') })).status).toBe(404);
    expect(built).toEqual([]);
  });
});
