// In-process measurements, one per child process (`node --expose-gc in-process.js <name> [count]`), printing JSON:
//   ids-memory / ids-sqlite   memory after N remembered delivery ids (MemoryDeliveryIdCache / the SQLite store)
//   events-sqlite / events-memory   RSS after N accepted events through the real gateway's pipeline (no sockets),
//                             with the echo agent and the bench sink draining the queue
//   events-sqlite-backlog      the same with a sleeping agent: every accepted event stays queued on disk
//   subscriptions             reload cost of a subscriptions file with N entries
//   observer-<variant>        CPU per request of the real pipeline (memory store, nothing processed) with the
//                             lifecycle observer: none (taken out, as before it existed), unused (the default:
//                             nobody listens), noop (a listener that does nothing on every event), metrics,
//                             journal (admin.enabled), tracing (no OpenTelemetry SDK), all three
//   observer-ab               'none' and 'unused' in one process, in alternating blocks of requests, so that the
//                             machine's load falls on both alike: CPU per request of each block
'use strict';
const { mkdtempSync, rmSync, statSync, writeFileSync, utimesSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');

const gc = () => {
  if (globalThis.gc) for (let i = 0; i < 3; i += 1) globalThis.gc();
};
const mem = () => {
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external };
};
const quietLogger = () => require('@hookwise/gateway').createLogger({ level: 'warn', stream: require('node:fs').createWriteStream('/dev/null') });

async function idsMemory(count) {
  const { MemoryDeliveryIdCache } = require('@hookwise/gateway');
  const before = mem();
  const cache = new MemoryDeliveryIdCache();
  const t = performance.now();
  for (let i = 0; i < count; i += 1) await cache.claim('bench', `b${1763770000000 + i}-${i}`);
  const elapsed = performance.now() - t;
  const after = mem();
  return {
    count,
    size: cache.size,
    rss: after.rss,
    rssDelta: after.rss - before.rss,
    heapDelta: after.heapUsed - before.heapUsed,
    usPerClaim: (elapsed * 1000) / count,
  };
}

async function idsSqlite(count) {
  const { openSqliteStore } = require('@hookwise/store-sqlite');
  const dir = mkdtempSync(path.join(tmpdir(), 'hookwise-bench-ids-'));
  try {
    const file = path.join(dir, 'ids.sqlite');
    const before = mem();
    const store = openSqliteStore({ file });
    const t = performance.now();
    // 1,000 claims in flight at a time, as under a burst: they share grouped commits.
    for (let i = 0; i < count; i += 1000) {
      const batch = [];
      for (let j = i; j < Math.min(count, i + 1000); j += 1) batch.push(store.deliveryIds.claim('bench', `b${1763770000000 + j}-${j}`));
      await Promise.all(batch);
    }
    const elapsed = performance.now() - t;
    const after = mem();
    await store.close();
    const bytesOnDisk = ['', '-wal', '-shm'].reduce((n, s) => n + (statSync(file + s, { throwIfNoEntry: false })?.size ?? 0), 0);
    return {
      count,
      rss: after.rss,
      rssDelta: after.rss - before.rss,
      heapDelta: after.heapUsed - before.heapUsed,
      usPerClaim: (elapsed * 1000) / count,
      bytesOnDisk,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** n evenly spaced samples, the last one included. */
function pick(samples, n) {
  if (samples.length <= n) return samples;
  return Array.from({ length: n }, (_, k) => samples[Math.round(((k + 1) * (samples.length - 1)) / n)]);
}

/**
 * mode 'drain': the echo agent and the bench sink process every event, max_pending 1000 (a 503 is retried);
 * mode 'backlog': the agent sleeps and nothing is processed, so every accepted event stays queued in the store.
 */
async function events(store, count, seconds, mode = 'drain') {
  const { startGateway } = require('@hookwise/server');
  const { signedRequest } = require('../lib/payload');
  const { SECRET } = require('../lib/payload');
  const home = mkdtempSync(path.join(tmpdir(), 'hookwise-bench-events-'));
  writeFileSync(
    path.join(home, 'config.yaml'),
    JSON.stringify({
      platforms: {
        webhook: { enabled: true, extra: { host: '127.0.0.1', port: 0, rate_limit: 1e9, routes: { bench: { secret: SECRET, deliver: 'bench_sink' } } } },
      },
      agent: mode === 'drain' ? { runner: 'echo', concurrency: 2 } : { runner: 'bench_sleep', sleep_ms: 3600000, concurrency: 1, timeout_seconds: 7200 },
      store: { backend: store, max_pending: mode === 'drain' ? 1000 : count + 1000 },
      log: { level: 'warn' },
      plugins: [path.join(__dirname, '..', 'lib', 'bench-plugin.js')],
    }),
  );
  const running = await startGateway({ configDir: home, logger: quietLogger(), firstParty: await require('@hookwise/cli').loadFirstPartyPlugins() });
  try {
    const { body, headers } = signedRequest(1024);
    const pipeline = running.gateway.pipeline;
    const t = performance.now();
    let peakRss = 0;
    const deadline = seconds > 0 ? Date.now() + seconds * 1000 : Infinity;
    const rssSamples = [];
    const sampler = setInterval(() => {
      const rss = process.memoryUsage().rss;
      peakRss = Math.max(peakRss, rss);
      rssSamples.push(rss);
    }, 1000);
    let accepted = 0;
    let refused = 0;
    const inFlight = 50;
    let next = 0;
    // Like senders that retry a 503: the queue is bounded (max_pending 1000), so every event is accepted and
    // processed, and what stays in memory is what the gateway remembers, not a backlog.
    const worker = async () => {
      while (next < count && Date.now() < deadline) {
        const i = next++;
        for (;;) {
          const result = await pipeline.handle({
            route: 'bench',
            headers: { ...headers, 'content-length': String(body.length), 'x-github-delivery': `e-${i}` },
            body,
          });
          if (result.status === 202) break;
          refused += 1;
          await new Promise((r) => setTimeout(r, 20));
        }
        accepted += 1;
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
    clearInterval(sampler);
    const elapsed = performance.now() - t;
    const after = mem();
    return {
      store,
      mode,
      count,
      accepted,
      refused503: refused,
      seconds: elapsed / 1000,
      perSecond: accepted / (elapsed / 1000),
      rss: after.rss,
      peakRss: Math.max(peakRss, after.rss),
      heapUsed: after.heapUsed,
      pending: await running.gateway.store.jobs.pendingCount(),
      rssSamples: pick(rssSamples, 5),
    };
  } finally {
    await running.close(1000);
    rmSync(home, { recursive: true, force: true });
  }
}

async function subscriptions(count) {
  const { createSubscriptionSource } = require('@hookwise/gateway');
  const home = mkdtempSync(path.join(tmpdir(), 'hookwise-bench-subs-'));
  try {
    const entries = {};
    const now = new Date().toISOString();
    for (let i = 0; i < count; i += 1) {
      entries[`sub-${i}`] = {
        description: `subscription ${i}`,
        events: ['push', 'pull_request'],
        secret: `s-${i}-0123456789abcdef`,
        prompt: 'New {event} on {repository.full_name}',
        skills: [],
        deliver: 'log',
        deliver_extra: {},
        created_at: now,
        updated_at: now,
      };
    }
    const file = path.join(home, 'webhook_subscriptions.json');
    const text = JSON.stringify(entries, null, 2);
    writeFileSync(file, text);
    const source = createSubscriptionSource({ configDir: home, logger: quietLogger() });
    const time = (fn) => {
      const t = performance.now();
      fn();
      return performance.now() - t;
    };
    const first = time(() => source.current());
    const routes = source.current().size;
    // Unchanged file: what every request to a subscription route pays (one stat).
    const N = 20_000;
    const unchanged =
      (time(() => {
        for (let i = 0; i < N; i += 1) source.current().get(`sub-${i % count}`);
      }) *
        1000) /
      N;
    // A changed file (one entry more, new mtime): the next request pays the reload.
    entries['sub-new'] = entries['sub-0'];
    writeFileSync(file, JSON.stringify(entries, null, 2));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const reload = time(() => source.current());
    return { count, routes, fileBytes: Buffer.byteLength(text), firstLoadMs: first, reloadMs: reload, unchangedUsPerLookup: unchanged };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * CPU per accepted request through `gateway.pipeline.handle()` (no sockets: the observer's cost is a fraction of a
 * microsecond, which HTTP noise would hide), after a warm-up; each variant runs in a fresh process.
 */
async function observer(variant, count) {
  const { startGateway } = require('@hookwise/server');
  const { LIFECYCLE_EVENTS } = require('@hookwise/gateway');
  const { signedRequest, SECRET } = require('../lib/payload');
  const home = mkdtempSync(path.join(tmpdir(), 'hookwise-bench-observer-'));
  const warmup = Math.min(5000, Math.floor(count / 4));
  const turnedOn = {
    metrics: { metrics: { enabled: true } },
    journal: { admin: { enabled: true } },
    tracing: { tracing: { enabled: true } },
    all: { metrics: { enabled: true }, admin: { enabled: true }, tracing: { enabled: true } },
  }[variant];
  writeFileSync(
    path.join(home, 'config.yaml'),
    JSON.stringify({
      platforms: {
        webhook: { enabled: true, extra: { host: '127.0.0.1', port: 0, rate_limit: 1e9, routes: { bench: { secret: SECRET, deliver: 'bench_sink' } } } },
      },
      agent: { runner: 'bench_sleep', sleep_ms: 3600000, concurrency: 1, timeout_seconds: 7200 },
      store: { backend: 'memory', max_pending: count + warmup + 1000 },
      log: { level: 'warn' },
      plugins: [path.join(__dirname, '..', 'lib', 'bench-plugin.js')],
      ...(turnedOn ?? {}),
    }),
  );
  const running = await startGateway({ configDir: home, logger: quietLogger(), firstParty: await require('@hookwise/cli').loadFirstPartyPlugins() });
  try {
    const { gateway } = running;
    const { WebhookPipeline } = require('@hookwise/gateway');
    // Every variant gets a pipeline built the same way from the gateway's own dependencies; 'none' builds it
    // without the emitter, as the code was before the observer. (Clearing the field of the running pipeline
    // instead would deoptimise every read of its dependencies: V8 treats fields never written again as constants.)
    const pipeline = new WebhookPipeline({ ...gateway.pipeline.deps, lifecycle: variant === 'none' ? undefined : gateway.lifecycle });
    if (variant === 'noop') for (const name of LIFECYCLE_EVENTS) gateway.on(name, () => undefined);
    const { body, headers } = signedRequest(1024);
    const base = { ...headers, 'content-length': String(body.length) };
    let next = 0;
    const send = async (end) => {
      while (next < end) {
        const i = next++;
        const result = await pipeline.handle({ route: 'bench', headers: { ...base, 'x-github-delivery': `o-${i}` }, body });
        if (result.status !== 202) throw new Error(`request ${i} answered ${result.status}: ${JSON.stringify(result.body)}`);
      }
    };
    const burst = (end) => Promise.all(Array.from({ length: 50 }, () => send(end)));
    await burst(warmup);
    gc();
    const cpu = process.cpuUsage();
    const t = performance.now();
    await burst(warmup + count);
    const used = process.cpuUsage(cpu);
    const elapsed = performance.now() - t;
    // The check every emitter makes, alone: what an event nobody listens to costs.
    const checks = 10_000_000;
    let heard = 0;
    let nsPerCheck = Infinity;
    // Three passes, the fastest kept: the first ones also measure the JIT compiling the loop. None when the
    // process is run to count its instructions (OBSERVER_NO_CHECK_LOOP=1: only the requests should differ).
    for (let pass = 0; pass < (process.env.OBSERVER_NO_CHECK_LOOP ? 0 : 3); pass += 1) {
      const c = performance.now();
      for (let i = 0; i < checks; i += 1) if (gateway.lifecycle.has('accepted')) heard += 1;
      nsPerCheck = Math.min(nsPerCheck, ((performance.now() - c) * 1e6) / checks);
    }
    return { variant, count, heard, usPerRequest: (used.user + used.system) / count, perSecond: count / (elapsed / 1000), nsPerCheck };
  } finally {
    await running.close(1000);
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * Two pipelines of one gateway, one built without the emitter and one with it (nobody listening), given blocks of
 * requests in turn; the first blocks warm both up. Returns each block's CPU per request.
 */
async function observerAb(count) {
  const { startGateway } = require('@hookwise/server');
  const { WebhookPipeline } = require('@hookwise/gateway');
  const { signedRequest, SECRET } = require('../lib/payload');
  const home = mkdtempSync(path.join(tmpdir(), 'hookwise-bench-observer-ab-'));
  const block = 1000;
  const blocks = Math.max(4, Math.floor(count / block / 2) * 2);
  const warmupBlocks = 6;
  writeFileSync(
    path.join(home, 'config.yaml'),
    JSON.stringify({
      platforms: {
        webhook: { enabled: true, extra: { host: '127.0.0.1', port: 0, rate_limit: 1e9, routes: { bench: { secret: SECRET, deliver: 'bench_sink' } } } },
      },
      agent: { runner: 'bench_sleep', sleep_ms: 3600000, concurrency: 1, timeout_seconds: 7200 },
      store: { backend: 'memory', max_pending: (blocks + warmupBlocks) * block * 2 + 1000 },
      log: { level: 'warn' },
      plugins: [path.join(__dirname, '..', 'lib', 'bench-plugin.js')],
    }),
  );
  const running = await startGateway({ configDir: home, logger: quietLogger(), firstParty: await require('@hookwise/cli').loadFirstPartyPlugins() });
  try {
    const { gateway } = running;
    const pipelines = {
      none: new WebhookPipeline({ ...gateway.pipeline.deps, lifecycle: undefined }),
      unused: new WebhookPipeline({ ...gateway.pipeline.deps, lifecycle: gateway.lifecycle }),
    };
    const { body, headers } = signedRequest(1024);
    const base = { ...headers, 'content-length': String(body.length) };
    let next = 0;
    const run = async (pipeline) => {
      const end = next + block;
      const send = async () => {
        while (next < end) {
          const i = next++;
          const result = await pipeline.handle({ route: 'bench', headers: { ...base, 'x-github-delivery': `ab-${i}` }, body });
          if (result.status !== 202) throw new Error(`request ${i} answered ${result.status}`);
        }
      };
      const cpu = process.cpuUsage();
      await Promise.all(Array.from({ length: 50 }, send));
      const used = process.cpuUsage(cpu);
      return (used.user + used.system) / block;
    };
    const results = { none: [], unused: [] };
    for (let b = 0; b < warmupBlocks + blocks; b += 1) {
      // Which variant goes first alternates, so that neither always follows the other.
      const order = b % 2 === 0 ? ['none', 'unused'] : ['unused', 'none'];
      for (const variant of order) {
        const us = await run(pipelines[variant]);
        if (b >= warmupBlocks) results[variant].push(us);
      }
    }
    return { block, blocks, none: results.none, unused: results.unused };
  } finally {
    await running.close(1000);
    rmSync(home, { recursive: true, force: true });
  }
}

const SCENARIOS = {
  'ids-memory': idsMemory,
  'ids-sqlite': idsSqlite,
  'events-sqlite': (n, seconds) => events('sqlite', n, seconds),
  'events-sqlite-backlog': (n, seconds) => events('sqlite', n, seconds, 'backlog'),
  'events-memory': (n, seconds) => events('memory', n, seconds),
  subscriptions,
  'observer-none': (n) => observer('none', n),
  'observer-unused': (n) => observer('unused', n),
  'observer-noop': (n) => observer('noop', n),
  'observer-metrics': (n) => observer('metrics', n),
  'observer-journal': (n) => observer('journal', n),
  'observer-tracing': (n) => observer('tracing', n),
  'observer-all': (n) => observer('all', n),
  'observer-ab': observerAb,
};

if (require.main === module) {
  const [name, count, seconds] = process.argv.slice(2);
  SCENARIOS[name](Number(count), Number(seconds ?? 0))
    .then((result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exit(0);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}

module.exports = { SCENARIOS };
