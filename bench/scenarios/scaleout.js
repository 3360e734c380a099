// Scale-out (issue 24): 1, 2 and 3 real gateways (`hookwise gateway run`) on ONE redis-server, each on its own port
// and driven by its own load generator (a process of its own), all at once. Per count of gateways:
//   1. acceptance: total accepted req/s, CPU per request summed over the gateway processes, redis-server's apart;
//   2. duplicates: the same delivery id sent to every gateway at the same moment is accepted once (one 202, the
//      others 200 duplicate);
//   3. draining: events sent to the first gateway only are run by the workers of all of them (an agent that takes
//      DRAIN_AGENT_MS without using the CPU, 2 at a time per gateway, so that one gateway's slots cannot keep up and
//      the time to drain shows the workers adding up; the bench sink counts each gateway's deliveries).
// Every step is bounded in time; every process is stopped at the end.
'use strict';
const { spawn } = require('node:child_process');
const path = require('node:path');
const { startGateway, sleep } = require('../lib/servers');
const { redisBinary, startRedis, REDIS_MISSING } = require('../lib/redis');
const { signedRequest } = require('../lib/payload');
const { cpuTimes, stealBetween } = require('../lib/steal');
const { num, pct, table } = require('../lib/format');

const LOAD_CHILD = path.join(__dirname, '..', 'lib', 'load-child.js');
const DUPLICATE_IDS = 20;
const DRAIN_EVENTS = 300;
const DRAIN_SECONDS = 90;
const DRAIN_AGENT_MS = 50;

/** Starts a load generator process; resolves with { go(), result } once it has warmed up. */
function startLoad(options) {
  const child = spawn(process.execPath, [LOAD_CHILD, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const lines = [];
  let onLine;
  child.stdout.on('data', (d) => {
    out += d;
    let i;
    while ((i = out.indexOf('\n')) >= 0) {
      lines.push(out.slice(0, i));
      out = out.slice(i + 1);
      onLine?.();
    }
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const nextLine = (timeoutMs) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`load generator silent for ${timeoutMs} ms`)), timeoutMs);
      const check = () => {
        if (lines.length) {
          clearTimeout(timer);
          onLine = undefined;
          resolve(lines.shift());
        } else if (child.exitCode !== null) {
          clearTimeout(timer);
          reject(new Error(`load generator exited with ${child.exitCode}`));
        }
      };
      onLine = check;
      exited.then(check);
      check();
    });
  const budgetMs = ((options.warmup ?? 0) + options.duration + 60) * 1000;
  return nextLine(budgetMs).then(() => ({
    go() {
      child.stdin.write('go\n');
      return nextLine(budgetMs).then((line) => JSON.parse(line));
    },
    kill: () => child.exitCode === null && child.kill('SIGKILL'),
  }));
}

/** One signed POST with a chosen delivery id; resolves { status, body }. */
async function post(url, id, request) {
  try {
    const res = await fetch(url, { method: 'POST', headers: { ...request.headers, 'x-github-delivery': id }, body: request.body });
    const text = await res.text();
    let body = {};
    try {
      body = JSON.parse(text);
    } catch {
      body = { raw: text };
    }
    return { status: res.status, body };
  } catch (err) {
    return { status: 0, body: { error: err.message } };
  }
}

async function startGateways(count, redis, agent) {
  const gateways = [];
  try {
    for (let i = 0; i < count; i += 1) {
      gateways.push(await startGateway({ store: 'redis', storeUrl: redis.url, agent, label: `gateway ${i + 1} (redis store)` }));
    }
    return gateways;
  } catch (err) {
    await Promise.all(gateways.map((g) => g.stop()));
    throw err;
  }
}

/** Step 1: every gateway driven at once by its own load generator; CPU of the gateways and of redis-server. */
async function acceptance(count, options, log) {
  const redis = await startRedis();
  const parked = { runner: 'bench_sleep', sleep_ms: 600000, concurrency: 1, timeout_seconds: 3600 };
  const gateways = await startGateways(count, redis, parked).catch(async (err) => {
    await redis.stop();
    throw err;
  });
  const loads = [];
  try {
    const connections = options.connections;
    for (const [i, g] of gateways.entries()) {
      loads.push(startLoad({ url: g.url, bytes: 1024, connections, warmup: options.warmup, duration: options.duration, idPrefix: `s${count}g${i + 1}-` }));
    }
    const ready = await Promise.all(loads);
    const gatewayCpu = () => gateways.reduce((sum, g) => sum + g.cpuSeconds(), 0);
    const before = { gateways: gatewayCpu(), redis: redis.cpuSeconds(), machine: cpuTimes() };
    const results = await Promise.all(ready.map((l) => l.go()));
    const spent = { gateways: gatewayCpu() - before.gateways, redis: redis.cpuSeconds() - before.redis };
    const accepted = results.reduce((n, x) => n + x.accepted, 0);
    const r = {
      count,
      rps: results.reduce((n, x) => n + x.rps, 0),
      perGateway: results.map((x) => x.rps),
      p99: Math.max(...results.map((x) => x.p99)),
      gatewayUs: (spent.gateways * 1e6) / accepted,
      redisUs: (spent.redis * 1e6) / accepted,
      gatewayCpuPercent: (spent.gateways / options.duration) * 100,
      redisCpuPercent: (spent.redis / options.duration) * 100,
      loadCpuPercent: (results.reduce((n, x) => n + x.cpuSeconds, 0) / options.duration) * 100,
      steal: stealBetween(before.machine, cpuTimes()),
      bad: results.reduce((n, x) => n + x.non2xx + x.errors + x.timeouts, 0),
    };
    log(
      `  ${count} gateway(s): ${num(r.rps)} req/s accepted (${r.perGateway.map((x) => num(x)).join(' + ')}), gateways ${num(r.gatewayUs)} µs + redis-server ${num(r.redisUs)} µs CPU per request, load generators ${num(r.loadCpuPercent)}% CPU, non-2xx/errors ${r.bad}`,
    );
    return r;
  } finally {
    for (const l of loads) (await l.catch(() => undefined))?.kill();
    await Promise.all(gateways.map((g) => g.stop()));
    await redis.stop();
  }
}

/** Steps 2 and 3 on fresh gateways with a short agent: duplicates sent to all of them, then draining. */
async function sharing(count, log) {
  const redis = await startRedis();
  const agent = { runner: 'bench_sleep', sleep_ms: DRAIN_AGENT_MS, concurrency: 2, timeout_seconds: 60 };
  const gateways = await startGateways(count, redis, agent).catch(async (err) => {
    await redis.stop();
    throw err;
  });
  try {
    const request = signedRequest(1024);
    // 2. The same id to every gateway at the same moment.
    let onceEach = 0;
    let acceptedTotal = 0;
    let duplicatesAnswered = 0;
    for (let k = 1; k <= DUPLICATE_IDS; k += 1) {
      const answers = await Promise.all(gateways.map((g) => post(g.url, `dup-${count}-${k}`, request)));
      const accepted = answers.filter((a) => a.status === 202).length;
      const duplicates = answers.filter((a) => a.status === 200 && a.body.status === 'duplicate').length;
      duplicatesAnswered += duplicates;
      acceptedTotal += accepted;
      if (accepted === 1 && duplicates === count - 1) onceEach += 1;
    }
    // 3. Events to the first gateway only; every worker leases from the one queue.
    const started = Date.now();
    let sent = 0;
    const send = async () => {
      while (sent < DRAIN_EVENTS) {
        sent += 1;
        const answer = await post(gateways[0].url, `drain-${count}-${sent}`, request);
        if (answer.status !== 202) throw new Error(`drain event ${sent} answered ${answer.status} ${JSON.stringify(answer.body)}`);
      }
    };
    await Promise.all(Array.from({ length: 10 }, send));
    const expected = DRAIN_EVENTS + acceptedTotal;
    let delivered = [];
    while (Date.now() - started < DRAIN_SECONDS * 1000) {
      delivered = await Promise.all(gateways.map(async (g) => (await g.report())?.sink?.delivered ?? 0));
      if (delivered.reduce((a, b) => a + b, 0) >= expected) break;
      await sleep(250);
    }
    const r = { count, onceEach, duplicatesAnswered, expected, delivered, drainSeconds: (Date.now() - started) / 1000 };
    log(
      `  ${count} gateway(s): ${onceEach} of ${DUPLICATE_IDS} ids sent to every gateway accepted exactly once; ${expected} jobs run as ${delivered.join(' + ')} in ${num(r.drainSeconds, 1)} s`,
    );
    return r;
  } finally {
    await Promise.all(gateways.map((g) => g.stop()));
    await redis.stop();
  }
}

async function run(options, log) {
  if (!redisBinary()) {
    log(`  ${REDIS_MISSING}; the scale-out phase needs it`);
    return { title: 'Scale-out on one Redis', markdown: `Not run: ${REDIS_MISSING}.`, goals: [] };
  }
  const counts = options.scaleoutCounts ?? [1, 2, 3];
  const rows = [];
  const shareRows = [];
  const goals = [];
  let one;
  for (const count of counts) {
    const a = await acceptance(count, options, log);
    one ??= a;
    const s = await sharing(count, log);
    rows.push([
      String(count),
      num(a.rps),
      a.perGateway.map((x) => num(x)).join(' + '),
      `${num(a.rps / one.rps, 2)}×`,
      `${num(a.gatewayUs)} µs`,
      `${num(a.redisUs)} µs`,
      `${num(a.gatewayUs + a.redisUs)} µs`,
      `${num(a.gatewayCpuPercent)}% / ${num(a.redisCpuPercent)}% / ${num(a.loadCpuPercent)}%`,
      `${num(a.p99)} ms`,
      pct(a.steal),
      String(a.bad),
    ]);
    shareRows.push([
      String(count),
      `${s.onceEach} of ${DUPLICATE_IDS} (${s.duplicatesAnswered} answered 200 duplicate)`,
      `${s.delivered.reduce((x, y) => x + y, 0)} of ${s.expected}`,
      s.delivered.join(' + '),
      `${num(s.drainSeconds, 1)} s`,
    ]);
    if (count > 1) {
      goals.push({
        name: `scale-out, ${count} gateways on one Redis: a delivery id sent to every gateway at once is accepted once`,
        value: `${s.onceEach} of ${DUPLICATE_IDS} ids: one 202, ${count - 1} × 200 duplicate`,
        ok: s.onceEach === DUPLICATE_IDS,
      });
      goals.push({
        name: `scale-out, ${count} gateways: the queue is drained by all of them (events sent to the first only)`,
        value: `${s.delivered.reduce((x, y) => x + y, 0)} of ${s.expected} jobs run, per gateway ${s.delivered.join(' + ')}`,
        ok: s.delivered.reduce((x, y) => x + y, 0) >= s.expected && s.delivered.every((d) => d > 0),
      });
    }
  }
  const markdown = [
    table(
      [
        'gateways',
        'accepted req/s (total)',
        'per gateway',
        'vs 1 gateway',
        'gateway CPU per request (sum of gateways)',
        'redis-server CPU per request',
        'together',
        'CPU gateways / redis-server / load generators',
        'p99 (worst generator)',
        'CPU steal',
        'non-2xx/errors',
      ],
      rows,
    ),
    '',
    table(['gateways', 'same delivery id sent to every gateway at once', 'jobs run', 'jobs run per gateway', 'time to drain'], shareRows),
    '',
    `Each count of gateways on a fresh redis-server (\`--save '' --appendonly no\`): the real gateway processes (\`hookwise gateway run\`, Redis store, same prefix), each on its own port with its own load generator process (autocannon, ${options.connections} connections, signed 1 KB code-host-A POSTs, every request a new delivery id), all started together after a ${options.warmup} s warm-up and measured for ${options.duration} s; the agent is parked (\`bench_sleep\`) as in the throughput table, so this measures acceptance. CPU per request is CPU time from \`/proc/<pid>/stat\` over the measured run divided by the 2xx answers of all generators; "CPU" percentages are of one core (the machine has ${require('node:os').availableParallelism?.() ?? ''}). Then on fresh gateways: ${DUPLICATE_IDS} delivery ids each sent to every gateway at the same moment, then ${DRAIN_EVENTS} events sent to the first gateway only, each run by an agent that answers after ${DRAIN_AGENT_MS} ms without using the CPU (\`bench_sleep\`, 2 runs at a time per gateway: one gateway alone needs about ${num((DRAIN_EVENTS * DRAIN_AGENT_MS) / 2 / 1000, 1)} s); "jobs run per gateway" is each gateway's count of delivered answers (the bench sink), "time to drain" runs from the first event sent to the last answer delivered, bounded by ${DRAIN_SECONDS} s.`,
  ].join('\n');
  return { title: 'Scale-out on one Redis', markdown, goals };
}

module.exports = { run };
