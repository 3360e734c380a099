// The worker's endings in-process: the lifecycle events of silent, delivered and budget-refused jobs, one warning per
// route, budget and window (then info lines), and budgets counted per process over a store that keeps no counters.
import { createHmac } from 'node:crypto';
import { Writable } from 'node:stream';
import { definePlugin, type Store } from '@hookwise/core';
import genericSource from '@hookwise/plugin-source-generic';
import { validateConfigObject } from '../../src/config/load';
import { Gateway } from '../../src/gateway';
import type { LifecycleEvents } from '../../src/observe/lifecycle';
import { createLogger } from '../../src/observe/logger';
import { createMemoryStore } from '../../src/stores/memory';

const SECRET = 'worker-endings-secret-0123456789';

function capturedLogger() {
  const lines: Array<{ level: string; message: string }> = [];
  const stream = new Writable({
    write(chunk, _e, done) {
      for (const raw of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(raw) as { level: string; message: string });
      done();
    },
  });
  return { logger: createLogger({ stream, format: 'json', level: 'debug' }), lines };
}

/** The agent answers the payload's `answer`; the deliverer accepts everything. */
const plugin = definePlugin({
  meta: { name: 'worker-endings-test', version: '1.0.0', api: 2 },
  contributes: [
    {
      kind: 'agent',
      id: 'scripted',
      create: () => ({ run: async (task) => ({ text: (JSON.parse(task.prompt) as { answer: string }).answer, usage: { inputTokens: 10, outputTokens: 2 } }) }),
    },
    { kind: 'deliverer', id: 'sink', create: () => ({ deliver: async () => ({ target: 'sink' }) }) },
  ],
});

function gatewayWith(routes: Record<string, unknown>, store: Store, agent: Record<string, unknown> = { runner: 'scripted' }) {
  const captured = capturedLogger();
  const config = validateConfigObject({
    platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', routes } } },
    agent: { concurrency: 1, ...agent },
  });
  const gateway = new Gateway({
    config,
    configDir: '/tmp',
    store,
    logger: captured.logger,
    plugins: [
      { plugin: genericSource, source: '@hookwise/plugin-source-generic', options: {} },
      { plugin, source: 'test', options: {} },
    ],
    pollMs: 20,
  });
  return { gateway, lines: captured.lines };
}

const post = (gw: Gateway, route: string, id: string, payload: unknown) => {
  const body = JSON.stringify(payload);
  return gw.pipeline.handle({
    route,
    headers: { 'content-type': 'application/json', 'x-request-id': id, 'x-webhook-signature': createHmac('sha256', SECRET).update(body).digest('hex') },
    body: Buffer.from(body),
  });
};

async function until<T>(check: () => T | undefined | false, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

let gw: Gateway | undefined;
afterEach(async () => {
  await gw?.stop(1000);
  gw = undefined;
});

// The runs of a test must fall into one clock hour.
beforeEach(async () => {
  const left = 3_600_000 - (Date.now() % 3_600_000);
  if (left < 10_000) await new Promise((r) => setTimeout(r, left + 100));
}, 20_000);

describe('worker endings', () => {
  it('reports completed with the outcome: delivered with its destinations, silent with the note', async () => {
    const made = gatewayWith({ ci: { secret: SECRET, deliver: 'sink' } }, createMemoryStore());
    gw = made.gateway;
    const completed: Array<LifecycleEvents['completed']> = [];
    gw.on('completed', (e) => completed.push(e));
    await gw.start();
    await post(gw, 'ci', 'spoken', { answer: 'A finding.' });
    await until(() => completed.length === 1);
    await post(gw, 'ci', 'quiet', { answer: '[SILENT]' });
    await until(() => completed.length === 2);
    expect(completed).toEqual([
      expect.objectContaining({ route: 'ci', deliveryId: 'spoken', outcome: 'delivered', destinations: ['sink'], attempt: 1 }),
      expect.objectContaining({
        route: 'ci',
        deliveryId: 'quiet',
        outcome: 'silent',
        destinations: [],
        note: 'the agent answered [SILENT]: nothing delivered',
      }),
    ]);
  });

  it('counts budgets in the process when the store keeps no counters, says so at startup, and warns once per window', async () => {
    const { counters: _none, ...store } = createMemoryStore();
    const made = gatewayWith({ ci: { secret: SECRET, deliver: 'sink', budget: { runs_per_hour: 1 } } }, store);
    gw = made.gateway;
    const refused: Array<LifecycleEvents['budget_exceeded']> = [];
    gw.on('budget_exceeded', (e) => refused.push(e));
    await gw.start();
    expect(made.lines).toContainEqual(expect.objectContaining({ level: 'warn', message: expect.stringContaining('counted by this process alone') }));
    for (const id of ['b-1', 'b-2', 'b-3']) await post(gw, 'ci', id, { answer: `answer ${id}` });
    await until(() => refused.length === 2);
    const hourEnd = (Math.floor(Date.now() / 3_600_000) + 1) * 3_600_000;
    expect(refused).toEqual([
      expect.objectContaining({ route: 'ci', scope: 'route', budget: 'runs_per_hour', limit: 1, action: 'wait', until: hourEnd }),
      expect.objectContaining({ route: 'ci', scope: 'route', budget: 'runs_per_hour', limit: 1, action: 'wait', until: hourEnd }),
    ]);
    const lines = made.lines.filter((l) => l.message.includes('route budget runs_per_hour (1) spent'));
    expect(lines.map((l) => l.level)).toEqual(['warn', 'info']);
    expect(lines[0].message).toContain('further refusals in this window are logged at info');
    const waiting = await gw.store.jobs.list({ status: 'pending', limit: 10 });
    expect(waiting).toHaveLength(2);
    expect(waiting.every((job) => job.runAt === hourEnd && job.attempts === 0)).toBe(true);
  });

  it('keeps agent.budget and agent.silent_marker from the runner: a runner with strict options (echo) still starts and runs', async () => {
    const agent = { runner: 'echo', budget: { runs_per_hour: 5 }, silent_marker: 'NOTHING' };
    const made = gatewayWith({ ci: { secret: SECRET, deliver: 'sink', prompt: 'NOTHING' } }, createMemoryStore(), agent);
    gw = made.gateway;
    await gw.start();
    await post(gw, 'ci', 'echoed', {});
    const job = await until(() => made.lines.find((l) => l.message.includes('echoed on route')));
    expect(job.message).toContain('ended silent: the agent answered NOTHING');
  });
});
