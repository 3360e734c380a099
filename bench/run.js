#!/usr/bin/env node
// `npm run bench`: builds (via the npm script), then measures the gateway against a bare node:http baseline (and
// adnanh/webhook when installed) on 127.0.0.1 only, prints markdown and writes docs/performance.md.
// Every phase is bounded in time and count and stops by itself. Not part of `npm test` or CI.
//   --quick            short runs (harness check, numbers not meaningful)
//   --only a,b         phases: throughput, latency, memory, subscriptions, cli, observer, scaleout, burst, modelproxy,
//                      sandbox, promptcache, mcpevents
//   --duration S       seconds per measured run (default 10; quick 2)
//   --rounds N         alternating rounds per throughput cell (default 2; quick 1)
//   --rate R           fixed rate for the latency phases (default 2000)
//   --latency-rounds N alternating runs of the baseline and the gateway at that rate, median shown (default 5; quick 1)
//   --events N         events for the in-process memory phase (default 1,000,000), bounded by --events-seconds
//   --servers a,b      throughput contenders by key (baseline always runs): gateway, uuid, express, memory,
//                      memory-express, redis, echo, adnanh
//   --gateways a,b     the scale-out phase's counts of gateways on one redis-server (default 1,2,3)
//   --burst-speedup F  the pr-review burst replayed F times faster than recorded, its window F times shorter (150)
//   --sizes a,b        throughput body sizes in KB (default 1,100)
//   --cli-runs N       runs per command in the CLI start-up phase (default 10; quick 3)
//   --observer-rounds N  alternating rounds of the lifecycle-observer variants (default 5; quick 1)
//   --sandbox-runs N   starts each way in the sandbox phase (default 30; quick 5)
//   --no-write         print only; leave docs/performance.md alone (a run writes the sections of the phases it ran
//                      and keeps the others': bench/lib/report.js)
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const { readFileSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT, webhookBinary } = require('./lib/servers');
const { num, mb, ms, pct, median, table, goal } = require('./lib/format');
const { cpuTimes, stealBetween } = require('./lib/steal');
const { writeInto } = require('./lib/report');

function parseArgs(argv) {
  const quick = argv.includes('--quick');
  const value = (name, fallback) => {
    const i = argv.indexOf(name);
    return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
  };
  return {
    quick,
    write: !argv.includes('--no-write'),
    only: value('--only', 'throughput,latency,memory,subscriptions,cli,observer,scaleout,burst,modelproxy,sandbox,promptcache,mcpevents').split(','),
    duration: Number(value('--duration', quick ? 2 : 10)),
    warmup: quick ? 1 : 3,
    rounds: Number(value('--rounds', quick ? 1 : 2)),
    connections: 50,
    rate: Number(value('--rate', 2000)),
    latencyRounds: Number(value('--latency-rounds', quick ? 1 : 5)),
    slowSeconds: 30,
    deliveryRate: Number(value('--delivery-rate', 200)),
    ids: Number(value('--ids', quick ? 100_000 : 1_000_000)),
    events: Number(value('--events', quick ? 20_000 : 1_000_000)),
    eventsSeconds: Number(value('--events-seconds', quick ? 20 : 180)),
    subscriptions: Number(value('--subscriptions', 10_000)),
    servers: argv.includes('--servers') ? ['baseline', ...value('--servers', '').split(',')] : undefined,
    sizes: value('--sizes', '1,100')
      .split(',')
      .map((kb) => Number(kb) * 1024),
    cliRuns: Number(value('--cli-runs', quick ? 3 : 10)),
    observerRounds: Number(value('--observer-rounds', quick ? 1 : 5)),
    observerRequests: Number(value('--observer-requests', quick ? 5000 : 30_000)),
    scaleoutCounts: value('--gateways', '1,2,3').split(',').map(Number),
    burstSpeedup: Number(value('--burst-speedup', 150)),
    sandboxRuns: Number(value('--sandbox-runs', quick ? 5 : 30)),
  };
}

function machine() {
  const cpu = (readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.+)$/m) || [])[1] ?? os.cpus()[0]?.model ?? 'unknown';
  let nproc = String(os.availableParallelism?.() ?? os.cpus().length);
  try {
    nproc = execFileSync('nproc', { encoding: 'utf8' }).trim();
  } catch {
    /* os value */
  }
  return {
    cpu,
    nproc,
    node: process.version,
    memory: `${Math.round(os.totalmem() / 1024 ** 3)} GiB`,
    kernel: os.release(),
    webhook: webhookBinary()?.version ?? 'not installed',
  };
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(', ');

/** Runs one in-process scenario in its own process (clean heap, --expose-gc) and returns its JSON. */
function inProcess(name, count, timeoutSeconds) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', path.join(__dirname, 'scenarios', 'in-process.js'), name, String(count), String(timeoutSeconds ?? 0)],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), ((timeoutSeconds ?? 300) + 120) * 1000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`${name} exited with ${code}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()));
      } catch {
        reject(new Error(`${name} exited without printing its result`));
      }
    });
  });
}

async function memoryPhase(options, log) {
  const goals = [];
  const idsMemory = await inProcess('ids-memory', options.ids);
  log(`  ${num(options.ids)} ids, memory cache: RSS ${mb(idsMemory.rss)}`);
  let idsSqlite;
  try {
    idsSqlite = await inProcess('ids-sqlite', options.ids);
    log(`  ${num(options.ids)} ids, SQLite: RSS ${mb(idsSqlite.rss)}`);
  } catch (err) {
    log(`  SQLite ids: ${err.message}`);
  }
  const events = [];
  for (const store of ['sqlite-backlog', 'sqlite', 'memory']) {
    try {
      const r = await inProcess(`events-${store}`, options.events, options.eventsSeconds);
      events.push(r);
      log(`  ${num(r.accepted)} events (${store}): RSS ${mb(r.rss)}, peak ${mb(r.peakRss)}`);
    } catch (err) {
      log(`  events (${store}): ${err.message}`);
    }
  }
  const idRows = [['MemoryDeliveryIdCache', num(idsMemory.count), mb(idsMemory.rss), mb(idsMemory.heapDelta), '–', `${num(idsMemory.usPerClaim, 1)} µs`]];
  if (idsSqlite)
    idRows.push([
      'SQLite store (grouped commits)',
      num(idsSqlite.count),
      mb(idsSqlite.rss),
      mb(idsSqlite.heapDelta),
      mb(idsSqlite.bytesOnDisk),
      `${num(idsSqlite.usPerClaim, 1)} µs`,
    ]);
  const eventRows = events.map((r) => [
    r.mode === 'backlog' ? `gateway (${r.store}), agent asleep: every event stays queued` : `gateway (${r.store}), echo agent draining, max_pending 1000`,
    `${num(r.accepted)} of ${num(r.count)}`,
    `${num(r.seconds, 0)} s`,
    num(r.perSecond),
    mb(r.rss),
    mb(r.peakRss),
    (r.rssSamples ?? []).map((x) => mb(x)).join(' → '),
  ]);
  for (const r of events) {
    const full = r.accepted >= 1_000_000;
    // The goal is the gateway's durable default; the memory store remembers up to 1 million delivery ids for an
    // hour by design (about 200 MB on their own), so its row is for comparison.
    const counts = full && r.store !== 'memory';
    goals.push({
      name: `RSS < 200 MB after 1 million accepted events (${r.store}${r.mode === 'backlog' ? ', all queued' : ', drained'})${r.store === 'memory' ? ' (for comparison)' : ''}`,
      value: `${mb(r.peakRss)} after ${num(r.accepted)} events${full ? '' : ' (time bound reached first)'}`,
      ok: counts ? r.peakRss < 200 * 1024 * 1024 : undefined,
    });
  }
  const markdown = [
    '**Remembered delivery ids** (fresh process, after GC):',
    '',
    table(['cache', 'ids', 'process RSS', 'heap growth', 'on disk', 'per claim'], idRows),
    '',
    '**Accepted events through the real gateway** (in process: `gateway.pipeline.handle()` with signed 1 KB bodies, 50 in flight, no sockets, bounded by the time limit of the phase; either nothing is processed and every event stays queued, or the echo agent and the bench sink drain the queue and a 503 is retried like a sender would):',
    '',
    table(['gateway', 'accepted', 'time', 'events/s', 'RSS at end', 'peak RSS', 'RSS over the run'], eventRows),
  ].join('\n');
  return { title: 'Memory', markdown, goals };
}

async function subscriptionsPhase(options, log) {
  const r = await inProcess('subscriptions', options.subscriptions);
  log(`  ${num(r.count)} subscriptions: first load ${num(r.firstLoadMs)} ms, reload ${num(r.reloadMs)} ms, unchanged ${num(r.unchangedUsPerLookup, 1)} µs`);
  const markdown = table(
    ['entries', 'file size', 'first load', 'reload after a change', 'lookup when unchanged (per request)'],
    [[num(r.count), mb(r.fileBytes), ms(r.firstLoadMs), ms(r.reloadMs), `${num(r.unchangedUsPerLookup, 1)} µs`]],
  );
  return {
    title: 'Subscriptions file reload',
    markdown: `${markdown}\n\nThe reload runs on the request that first sees the new mtime, so that request (and the event loop) waits for it.`,
    goals: [],
  };
}

/**
 * The lifecycle observer (issue 22): CPU per request of the real pipeline without the observer, with it and nobody
 * listening (the default), with a do-nothing listener on every event, and with metrics, journal and tracing on.
 * Variants alternate, each run in a fresh process, the order rotated per round.
 */
async function observerPhase(options, log) {
  const variants = ['none', 'unused', 'noop', 'metrics', 'journal', 'tracing', 'all'];
  const runs = Object.fromEntries(variants.map((v) => [v, []]));
  for (let round = 0; round < options.observerRounds; round += 1) {
    const order = variants.map((_, i) => variants[(i + round) % variants.length]);
    for (const variant of order) {
      const r = await inProcess(`observer-${variant}`, options.observerRequests, 120);
      runs[variant].push(r);
      log(`  round ${round + 1} ${variant}: ${num(r.usPerRequest, 1)} µs CPU per request, ${num(r.perSecond)} req/s; has() ${num(r.nsPerCheck, 1)} ns`);
    }
  }
  // The steadier comparison: both in one process, in alternating blocks, so that the machine's load falls on both.
  const ab = await inProcess('observer-ab', options.observerRequests * 2, 300);
  const blockDiffs = ab.unused.map((u, i) => u - ab.none[i]);
  const quartiles = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return [s[Math.floor((s.length - 1) / 4)], s[Math.ceil(((s.length - 1) * 3) / 4)]];
  };
  const [q1, q3] = quartiles(blockDiffs);
  log(`  alternating blocks: none ${num(median(ab.none), 2)} µs, unused ${num(median(ab.unused), 2)} µs, paired difference ${num(median(blockDiffs), 3)} µs`);
  const cpu = (v) => median(runs[v].map((r) => r.usPerRequest));
  const none = cpu('none');
  const labels = {
    none: 'observer taken out (as before it existed)',
    unused: 'observer, nobody listening (the default)',
    noop: 'a do-nothing listener on every event',
    metrics: 'metrics.enabled',
    journal: "admin.enabled (the dashboard's journal)",
    tracing: 'tracing.enabled, no SDK registered',
    all: 'all three',
  };
  const rows = variants.map((v) => [
    labels[v],
    `${num(cpu(v), 1)} µs`,
    v === 'none' ? '–' : `${cpu(v) >= none ? '+' : ''}${num(cpu(v) - none, 1)} µs (${pct(((cpu(v) - none) / none) * 100)})`,
    `${num(median(runs[v].map((r) => r.perSecond)))}`,
    runs[v].map((r) => num(r.usPerRequest, 1)).join(', '),
  ]);
  // Nothing measurable: the median difference of the paired blocks is under 1% of a request's CPU.
  const diff = median(blockDiffs);
  const base = median(ab.none);
  const goals = [
    {
      name: 'the lifecycle observer costs nothing measurable when nobody listens (CPU per request, in-process pipeline)',
      value: `${diff >= 0 ? '+' : ''}${num(diff, 3)} µs on ${num(base, 2)} µs (median of ${ab.none.length} paired blocks of ${num(ab.block)} requests in one process; quartiles ${num(q1, 2)} to ${num(q3, 2)} µs); one has() check ${num(median(runs.unused.map((r) => r.nsPerCheck)), 1)} ns`,
      ok: diff <= base * 0.01,
    },
  ];
  const markdown = [
    table(['variant', 'CPU per request (median)', 'vs. without the observer', 'requests/s (median)', 'CPU per request, each run'], rows),
    '',
    table(
      ['in one process, alternating blocks', 'CPU per request (median block)', 'difference, paired blocks (median)', 'quartiles of the differences'],
      [
        [
          'observer taken out / nobody listening',
          `${num(median(ab.none), 2)} / ${num(median(ab.unused), 2)} µs`,
          `${diff >= 0 ? '+' : ''}${num(diff, 3)} µs`,
          `${num(q1, 2)} to ${num(q3, 2)} µs`,
        ],
      ],
    ),
    '',
    `${num(options.observerRequests)} signed 1 KB requests per run through \`gateway.pipeline.handle()\` (memory store, 50 in flight, no sockets, nothing processed) after a warm-up, ${options.observerRounds} round(s), each variant in a fresh process and the order rotated per round; on a loaded machine these runs differ by several µs from one another. The second table gives one process both pipelines (built the same way, one without the emitter) and ${num(ab.none.length)} pairs of ${num(ab.block)}-request blocks in turn after a warm-up, the order flipped every pair, so that both meet the same load: it is the comparison the goal uses. "Taken out" is a pipeline built without the emitter, which is what the code did before the observer existed apart from the optional-chaining reads; every variant's pipeline is built the same way. "has() check" is the test every emitter makes before building an event, timed alone.`,
  ].join('\n');
  return { title: 'Lifecycle observer', markdown, goals };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const log = (line) => process.stderr.write(`${line}\n`);
  const m = machine();
  const loadBefore = load();
  const cpuBefore = cpuTimes();
  const started = new Date();
  log(`hookwise bench on ${m.cpu}, ${m.nproc} cores, node ${m.node}; load average ${loadBefore}`);
  const sections = [];
  if (options.only.includes('throughput')) {
    log('throughput…');
    sections.push({ key: 'throughput', ...(await require('./scenarios/throughput').run(options, log)) });
  }
  if (options.only.includes('latency')) {
    log('latency…');
    sections.push({ key: 'latency', ...(await require('./scenarios/latency').run(options, log)) });
  }
  if (options.only.includes('memory')) {
    log('memory…');
    sections.push({ key: 'memory', ...(await memoryPhase(options, log)) });
  }
  if (options.only.includes('subscriptions')) {
    log('subscriptions…');
    sections.push({ key: 'subscriptions', ...(await subscriptionsPhase(options, log)) });
  }
  if (options.only.includes('cli')) {
    log('cli…');
    sections.push({ key: 'cli', ...(await require('./scenarios/cli').run(options, log)) });
  }
  if (options.only.includes('observer')) {
    log('observer…');
    sections.push({ key: 'observer', ...(await observerPhase(options, log)) });
  }
  if (options.only.includes('scaleout')) {
    log('scale-out…');
    sections.push({ key: 'scaleout', ...(await require('./scenarios/scaleout').run(options, log)) });
  }
  if (options.only.includes('burst')) {
    log('pr-review burst…');
    sections.push({ key: 'burst', ...(await require('./scenarios/burst').run(options, log)) });
  }
  if (options.only.includes('modelproxy')) {
    log('model proxy…');
    sections.push({ key: 'modelproxy', ...(await require('./scenarios/model-proxy').run(options, log)) });
  }
  if (options.only.includes('sandbox')) {
    log('sandbox start…');
    sections.push({ key: 'sandbox', ...(await require('./scenarios/sandbox-start').run(options, log)) });
  }
  if (options.only.includes('promptcache')) {
    log('prompt cache…');
    sections.push({ key: 'promptcache', ...(await require('./scenarios/prompt-cache').run(options, log)) });
  }
  if (options.only.includes('mcpevents')) {
    log('MCP Events fan-out and polling…');
    sections.push({ key: 'mcpevents', ...(await require('./scenarios/mcp-events').run(options, log)) });
  }
  const loadAfter = load();
  const stolen = stealBetween(cpuBefore, cpuTimes());
  const steal = Number.isFinite(stolen) ? pct(stolen) : 'unknown';
  const goals = sections.flatMap((s) => s.goals);
  const when = `${started.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const header = `Measured ${when} on ${m.cpu}, ${m.nproc} cores (\`nproc\`), ${m.memory}, Linux ${m.kernel}, Node ${m.node}; adnanh/webhook: ${m.webhook}. Load average (1, 5, 15 min) before: ${loadBefore}; after: ${loadAfter}. CPU time stolen by the hypervisor during the run (\`/proc/stat\`): ${steal}.${options.quick ? ' **Quick run: numbers not meaningful.**' : ''}`;
  const report = [
    header,
    '',
    '### Goals',
    '',
    table(
      ['goal', 'measured', ''],
      goals.map((g) => [g.name, g.value, goal(g.ok)]),
    ),
    '',
    ...sections.flatMap((s) => [`### ${s.title}`, '', s.markdown, '']),
  ].join('\n');
  process.stdout.write(`${report}\n`);
  if (options.write) {
    const file = path.join(ROOT, 'docs', 'performance.md');
    const phases = sections.map((s) => ({ key: s.key, title: s.title, markdown: s.markdown, goals: s.goals }));
    const provenance = `${header} Phases of this run: ${phases.map((p) => p.key).join(', ')}.`;
    writeFileSync(
      file,
      writeInto(readFileSync(file, 'utf8'), { header: `${header} Phases: ${phases.map((p) => p.key).join(', ')}.`, when, provenance, phases }, file),
    );
    log(`wrote ${path.relative(ROOT, file)} (${phases.map((p) => p.key).join(', ')}; other phases' sections kept)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
