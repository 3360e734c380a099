// CPU profile of the real gateway under the throughput bench's load (SQLite store, sleeping agent, 1 KB signed
// POSTs, 50 connections): `node --cpu-prof` in the gateway process, then the self time summed by function and
// by file, as shares of the measured run. Usage:
//   npm run build && node bench/profile-gateway.js [--duration S] [--top N] [--keep DIR] [--baseline] [--store sqlite|redis|memory]
// With --store redis the gateway gets a fresh redis-server of its own (bench/lib/redis.js), profiled apart from it.
'use strict';
const { mkdtempSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir, loadavg } = require('node:os');
const path = require('node:path');
const { startBaseline, startGateway } = require('./lib/servers');
const { drive } = require('./lib/load');

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : process.argv[i + 1];
};

/** Self time (µs) per function and per file from a .cpuprofile, the idle and GC nodes named as V8 names them. */
function selfTimes(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i += 1) {
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
  }
  const fns = new Map();
  const files = new Map();
  let total = 0;
  for (const [id, us] of self) {
    const { callFrame } = byId.get(id);
    const file = callFrame.url
      ? callFrame.url.replace(/^file:\/\//, '').replace(path.join(__dirname, '..') + '/', '')
      : `(${callFrame.functionName || 'native'})`;
    const fn = `${callFrame.functionName || '(anonymous)'} ${file}:${callFrame.lineNumber + 1}`;
    fns.set(fn, (fns.get(fn) ?? 0) + us);
    files.set(file, (files.get(file) ?? 0) + us);
    if (callFrame.functionName !== '(idle)') total += us;
  }
  return { fns, files, total };
}

async function main() {
  const duration = Number(arg('--duration', 8));
  const top = Number(arg('--top', 40));
  const dir = arg('--keep', undefined) ?? mkdtempSync(path.join(tmpdir(), 'hookwise-bench-prof-'));
  const load = loadavg().map((x) => x.toFixed(2));
  const parked = { runner: 'bench_sleep', sleep_ms: 600000, concurrency: 1, timeout_seconds: 3600 };
  const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
  // --baseline: the bare node:http server of the throughput bench instead, to compare like with like.
  const baseline = process.argv.includes('--baseline');
  const store = arg('--store', 'sqlite');
  const server = baseline
    ? await startBaseline(nodeArgs)
    : store === 'redis'
      ? await require('./lib/redis').startGatewayOnOwnRedis({ agent: parked, nodeArgs })
      : await startGateway({ store, agent: parked, nodeArgs });
  let result;
  try {
    await drive({ url: server.url, bytes: 1024, duration: 3 });
    result = await drive({ url: server.url, bytes: 1024, duration, server });
  } finally {
    await server.stop();
  }
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile was written to ${dir}: did the gateway exit cleanly?`);
  const { fns, files, total } = selfTimes(JSON.parse(readFileSync(path.join(dir, file), 'utf8')));
  const share = (us) => `${((100 * us) / total).toFixed(1)}%`;
  console.log(
    `${baseline ? 'baseline' : 'gateway'} profile: ${result.rps.toFixed(0)} req/s, ${result.cpuUsPerRequest?.toFixed(1)} µs CPU per request; load average ${load.join(' ')}`,
  );
  console.log('\nby file (self time, share of the busy time, warm-up included):');
  for (const [f, us] of [...files].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${share(us).padStart(6)}  ${f}`);
  console.log('\nby function:');
  for (const [f, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${share(us).padStart(6)}  ${f}`);
  if (!arg('--keep', undefined)) rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
