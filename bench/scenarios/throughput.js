// Raw throughput: every server under the same signed load, alternating, fresh process per run.
'use strict';
const path = require('node:path');
const { startBaseline, startGateway, startAdnanhWebhook, webhookBinary } = require('../lib/servers');
const { drive } = require('../lib/load');
const { redisBinary, startGatewayOnOwnRedis, REDIS_MISSING } = require('../lib/redis');
const { num, mb, ms, pct, median, table } = require('../lib/format');

/** The contenders. The sleeping agent keeps the worker from competing for the CPU: this measures acceptance. */
function contenders() {
  const parked = { runner: 'bench_sleep', sleep_ms: 600000, concurrency: 1, timeout_seconds: 3600 };
  const list = [
    { key: 'baseline', label: 'bare node:http', start: () => startBaseline() },
    { key: 'gateway', label: 'gateway (sqlite)', start: () => startGateway({ store: 'sqlite', agent: parked }) },
    // An earlier build of packages/gateway (BENCH_REF_GATEWAY_DIST: a copy of the package: its package.json and dist), taking turns with this one.
    ...(process.env.BENCH_REF_GATEWAY_DIST
      ? [
          {
            key: 'ref',
            label: 'gateway (sqlite, reference build)',
            start: () => startGateway({ store: 'sqlite', agent: parked, nodeArgs: ['--require', path.join(__dirname, '..', 'lib', 'ref-dist.js')] }),
          },
          {
            key: 'ref-info',
            label: 'gateway (sqlite, reference build, log level info: access log on)',
            start: () =>
              startGateway({ store: 'sqlite', agent: parked, logLevel: 'info', nodeArgs: ['--require', path.join(__dirname, '..', 'lib', 'ref-dist.js')] }),
          },
        ]
      : []),
    // The default log level: one access line per request, written to the bench's pipe.
    { key: 'info', label: 'gateway (sqlite, log level info: access log on)', start: () => startGateway({ store: 'sqlite', agent: parked, logLevel: 'info' }) },
    {
      key: 'uuid',
      label: 'gateway (sqlite, random UUID delivery ids)',
      randomIds: true,
      sizes: [1024],
      start: () => startGateway({ store: 'sqlite', agent: parked }),
    },
    { key: 'express', label: 'gateway (sqlite, via Express router)', start: () => startGateway({ store: 'sqlite', agent: parked, ingest: 'express' }) },
    // Issue 33: the same gateway with a store that keeps nothing, to tell the cost outside the store from the store's.
    { key: 'discard', label: 'gateway (store that keeps nothing)', start: () => startGateway({ store: 'bench_discard', agent: parked }) },
    { key: 'memory', label: 'gateway (memory store)', start: () => startGateway({ store: 'memory', agent: parked }) },
    // The Redis store against a fresh redis-server of the bench's own, stopped with the gateway.
    ...(redisBinary() ? [{ key: 'redis', label: 'gateway (redis store)', start: () => startGatewayOnOwnRedis({ agent: parked }) }] : []),
    {
      key: 'memory-express',
      label: 'gateway (memory store, via Express router)',
      start: () => startGateway({ store: 'memory', agent: parked, ingest: 'express' }),
    },
    { key: 'echo', label: 'gateway (sqlite, echo agent draining)', start: () => startGateway({ store: 'sqlite', agent: { runner: 'echo', concurrency: 2 } }) },
  ];
  if (webhookBinary()) list.push({ key: 'adnanh', label: 'adnanh/webhook', start: () => startAdnanhWebhook() });
  return list;
}

async function oneRun(contender, bytes, options) {
  const server = await contender.start();
  try {
    // Warm-up: JIT, connection setup, SQLite pages; not counted.
    const load = { url: server.url, bytes, connections: options.connections, randomIds: contender.randomIds };
    await drive({ ...load, duration: options.warmup });
    await server.report();
    const result = await drive({ ...load, duration: options.duration, server });
    const report = await server.report();
    return { ...result, eld: report?.probe?.eld };
  } finally {
    await server.stop();
  }
}

async function run(options, log) {
  const list = contenders().filter((c) => !options.servers || options.servers.includes(c.key));
  if (!redisBinary() && (!options.servers || options.servers.includes('redis'))) log(`  ${REDIS_MISSING}`);
  const sizes = options.sizes;
  const results = {}; // key -> size -> [runs]
  for (let round = 0; round < options.rounds; round += 1) {
    for (const bytes of sizes) {
      // Rotate the order each round so no contender always runs first or last.
      const order = list.map((_, i) => list[(i + round) % list.length]).filter((c) => !c.sizes || c.sizes.includes(bytes));
      for (const c of order) {
        const r = await oneRun(c, bytes, options);
        ((results[c.key] ??= {})[bytes] ??= []).push(r);
        log(
          `  ${c.label} ${bytes / 1024} KB round ${round + 1}: ${num(r.rps)} req/s, ${num(r.cpuUsPerRequest)} µs CPU per request, p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.non2xx}, errors ${r.errors}`,
        );
      }
    }
  }
  const summary = (key, bytes) => {
    const runs = results[key]?.[bytes] ?? [];
    return {
      rps: median(runs.map((r) => r.rps)),
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      peakRss: Math.max(...runs.map((r) => r.peakRss)),
      eldP99: median(runs.map((r) => r.eld?.p99)),
      cpuUs: median(runs.map((r) => r.cpuUsPerRequest)),
      companionUs: median(runs.map((r) => r.companionCpuUsPerRequest)),
      serverCpu: median(runs.map((r) => r.serverCpuPercent)),
      clientCpu: median(runs.map((r) => r.clientCpuPercent)),
      steal: median(runs.map((r) => r.stealPercent)),
      bad: runs.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0),
    };
  };
  const rows = [];
  const goals = [];
  for (const bytes of sizes) {
    const base = summary('baseline', bytes);
    for (const c of list.filter((entry) => results[entry.key]?.[bytes])) {
      const s = summary(c.key, bytes);
      const ratio = s.rps / base.rps;
      const cpuRatio = base.cpuUs / s.cpuUs;
      rows.push([
        `${bytes / 1024} KB`,
        c.label,
        num(s.rps),
        c.key === 'baseline' ? '1.00×' : `${num(ratio, 2)}×`,
        ms(s.p50),
        ms(s.p99),
        `${num(s.cpuUs)} µs`,
        c.key === 'baseline' ? '1.00×' : `${num(cpuRatio, 2)}×`,
        Number.isFinite(s.companionUs) ? `${num(s.companionUs)} µs` : '–',
        `${num(s.serverCpu)}% / ${num(s.clientCpu)}%`,
        mb(s.peakRss),
        ms(s.eldP99),
        pct(s.steal),
        String(s.bad),
      ]);
    }
    if (bytes === 1024 && results.gateway) {
      const g = summary('gateway', bytes);
      goals.push({
        name: 'throughput ≥ 0.7× bare node:http at 1 KB (gateway, sqlite)',
        value: `${num(g.rps / base.rps, 2)}× (CPU per request: ${num(base.cpuUs / g.cpuUs, 2)}×)`,
        ok: g.rps / base.rps >= 0.7,
      });
      goals.push(...cpuGoals(summary, bytes, results));
      if (results.adnanh) {
        const a = summary('adnanh', bytes);
        goals.push({ name: 'throughput ahead of adnanh/webhook at 1 KB', value: `${num(g.rps)} vs ${num(a.rps)} req/s`, ok: g.rps > a.rps });
      }
    }
  }
  const markdown = [
    table(
      [
        'body',
        'server',
        'req/s (2xx)',
        'req/s vs baseline',
        'p50',
        'p99',
        'server CPU per request',
        'CPU efficiency vs baseline',
        'redis-server CPU per request',
        'CPU server / load generator',
        'peak RSS',
        'event-loop delay p99',
        'CPU steal',
        'non-2xx/errors',
      ],
      rows,
    ),
    '',
    'Server CPU per request is the server process’s user+system time (its forked children included, for adnanh/webhook) divided by the 2xx answers, from `/proc/<pid>/stat` across the measured run; for the Redis store the gateway process only, with the redis-server the bench started for that run (fresh, `--save \'\' --appendonly no`) in its own column; "CPU efficiency vs baseline" is baseline CPU per request ÷ this row’s, so 0.5× means twice the CPU per request. The load generator (autocannon) runs in the bench process on the same 2 cores; when it is near 100% it, not the server, limits req/s. "CPU steal" is the share of the machine’s CPU time the hypervisor gave to other guests during the run (`/proc/stat`): the noise that run met.',
    '',
    `${options.rounds} run(s) of ${options.duration} s per cell after a ${options.warmup} s warm-up, ${options.connections} connections, medians shown; every contender in a fresh process, order rotated per round.`,
  ].join('\n');
  return { title: 'Throughput (signed code-host-A POST, every request a new delivery id)', markdown, goals, results };
}

/**
 * The goals of issue 24, judged on server CPU per request at 1 KB (the quantity CPU steal barely moves): the SQLite
 * store at least 0.70 of bare node:http's efficiency, the memory store no dearer than SQLite, the Redis store at most
 * twice SQLite (its gateway process, as the issue measured it; with redis-server's CPU added, shown alongside).
 */
function cpuGoals(summary, bytes, results) {
  const base = summary('baseline', bytes);
  const g = summary('gateway', bytes);
  const us = (n) => `${num(n)} µs`;
  const goals = [
    {
      name: 'SQLite store: CPU efficiency ≥ 0.70 of bare node:http (CPU per request, 1 KB)',
      value: `${num(base.cpuUs / g.cpuUs, 2)}× (${us(g.cpuUs)} vs ${us(base.cpuUs)})`,
      ok: base.cpuUs / g.cpuUs >= 0.7,
    },
  ];
  if (results.memory) {
    const m = summary('memory', bytes);
    goals.push({
      name: 'memory store: CPU per request ≤ the SQLite store’s (1 KB)',
      value: `${us(m.cpuUs)} vs ${us(g.cpuUs)} (${num(m.cpuUs / g.cpuUs, 2)}×)`,
      ok: m.cpuUs <= g.cpuUs,
    });
  }
  if (results.redis) {
    const r = summary('redis', bytes);
    goals.push({
      name: 'Redis store: CPU per request ≤ 2× the SQLite store’s (gateway process, 1 KB)',
      value: `${us(r.cpuUs)} vs ${us(g.cpuUs)} (${num(r.cpuUs / g.cpuUs, 2)}×); with redis-server’s ${us(r.companionUs)}: ${num((r.cpuUs + r.companionUs) / g.cpuUs, 2)}×`,
      ok: r.cpuUs <= 2 * g.cpuUs,
    });
    // Issue 33 asks for more: at most 1.5× (the same gateway-process CPU).
    goals.push({
      name: 'Redis store: CPU per request ≤ 1.5× the SQLite store’s (gateway process, 1 KB; issue 33)',
      value: `${us(r.cpuUs)} vs ${us(g.cpuUs)} (${num(r.cpuUs / g.cpuUs, 2)}×)`,
      ok: r.cpuUs <= 1.5 * g.cpuUs,
    });
  }
  return goals;
}

module.exports = { run, contenders };
