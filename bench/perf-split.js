// Where each server's CPU goes, kernel included: `perf record -g` (all threads of the process) on the gateway
// (SQLite store, sleeping agent) and on the bare node:http baseline under the throughput bench's load, one after
// the other, then the inclusive share of a fixed set of call-graph nodes turned into µs per answered request.
// `node --cpu-prof` (bench/profile-gateway.js) samples wall time on the main thread: a write that gets the thread
// preempted (waking the load generator on the same core) shows there as CPU it did not use. Needs perf and the
// right to profile (root, or kernel.perf_event_paranoid <= 1 for kernel frames). Usage:
//   npm run build && node bench/perf-split.js [--duration S] [--keep DIR]
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir, loadavg } = require('node:os');
const path = require('node:path');
const { startBaseline, startGateway } = require('./lib/servers');
const { drive } = require('./lib/load');
const { cpuTimes, stealBetween } = require('./lib/steal');

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : process.argv[i + 1];
};

/** Call-graph nodes (perf's symbol names, matched whole) and what they stand for; inclusive ("children") shares. */
const NODES = [
  ['[k] entry_SYSCALL_64_after_hwframe', 'system calls (kernel), all'],
  ['[.] __GI___writev', 'answers written (writev, kernel included)'],
  ['[.] uv__read', 'requests read and handled in the read callback'],
  ['[.] node::(anonymous namespace)::Parser::Execute', 'HTTP parser and what it calls'],
  ['[.] sqlite3_step', 'SQLite statements (both threads)'],
  ['[.] sqlite3PagerCommitPhaseOne.part.0', 'SQLite commits (WAL frames written)'],
  ['[.] sqlite3Checkpoint', 'WAL checkpoints (either thread)'],
  ['[.] __libc_pwrite', 'pwrite (WAL frames and checkpoint copies)'],
  ['[.] fsync', 'fsync'],
  ['[.] v8::internal::Heap::CollectGarbage', 'garbage collection (main thread)'],
  [
    '[.] node::crypto::Hmac::HmacUpdate(v8::FunctionCallbackInfo<v8::Value> const&)::{lambda(node::crypto::Hmac*, v8::FunctionCallbackInfo<v8::Value> const&, char const*, unsigned long)#1}::_FUN',
    'HMAC over the body',
  ],
  ['[.] v8::internal::JsonParser<unsigned char>::ParseJson', 'JSON.parse'],
  ['[k] finish_task_switch.isra.0', 'context switches (switching back in)'],
  ['[.] v8::internal::OptimizingCompileDispatcher::CompileNext', 'optimizing compiler thread'],
];

function shares(file) {
  const r = spawnSync('perf', ['report', '-i', file, '--children', '--sort', 'sym', '--stdio', '-g', 'none'], { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`perf report failed: ${r.stderr}`);
  const out = new Map();
  for (const line of r.stdout.split('\n')) {
    const m = /^\s+([\d.]+)%\s+[\d.]+%\s+(.*\S)\s*$/.exec(line);
    if (m && !out.has(m[2])) out.set(m[2], Number(m[1]));
  }
  return out;
}

async function measure(kind, dir, duration) {
  const parked = { runner: 'bench_sleep', sleep_ms: 600000, concurrency: 1, timeout_seconds: 3600 };
  // --perf-basic-prof names JIT frames; the perf map it writes is under /tmp, removed at the end.
  const nodeArgs = ['--perf-basic-prof'];
  const server = kind === 'baseline' ? await startBaseline(nodeArgs) : await startGateway({ store: 'sqlite', agent: parked, nodeArgs });
  const file = path.join(dir, `${kind}.data`);
  try {
    await drive({ url: server.url, bytes: 1024, duration: 3 });
    const perf = spawn('perf', ['record', '-F', '1999', '-g', '-p', String(server.pid), '-o', file, '--', 'sleep', String(duration)], { stdio: 'ignore' });
    const recorded = new Promise((resolve) => perf.once('exit', resolve));
    const before = cpuTimes();
    const result = await drive({ url: server.url, bytes: 1024, duration: duration + 1, server });
    await recorded;
    return { kind, result, steal: stealBetween(before, cpuTimes()), file, pid: server.pid };
  } finally {
    await server.stop();
  }
}

async function main() {
  const duration = Number(arg('--duration', 5));
  const dir = arg('--keep', undefined) ?? mkdtempSync(path.join(tmpdir(), 'hookwise-bench-perf-'));
  console.log(
    `perf split, ${duration} s recorded per server; load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(', ')}`,
  );
  const runs = [];
  for (const kind of ['gateway', 'baseline']) runs.push(await measure(kind, dir, duration));
  const columns = runs.map((run) => {
    // Read while the JIT's perf map is still there; then it goes.
    const s = shares(run.file);
    rmSync(`/tmp/perf-${run.pid}.map`, { force: true });
    // Samples are on-CPU time of the whole process at a fixed rate, so a share of them is a share of its CPU.
    const perRequest = run.result.cpuUsPerRequest;
    return { run, s, perRequest };
  });
  console.log(`\n| | ${columns.map((c) => `${c.run.kind}: µs per request (share)`).join(' | ')} |\n| --- |${columns.map(() => ' --- |').join('')}`);
  console.log(`| CPU per request (whole process, /proc) | ${columns.map((c) => `${c.perRequest.toFixed(1)}`).join(' | ')} |`);
  for (const [node, label] of NODES) {
    const cells = columns.map((c) => {
      const pct = c.s.get(node);
      return pct === undefined ? '–' : `${((pct / 100) * c.perRequest).toFixed(1)} (${pct.toFixed(1)}%)`;
    });
    console.log(`| ${label} | ${cells.join(' | ')} |`);
  }
  console.log(`\n${columns.map((c) => `${c.run.kind}: ${Math.round(c.run.result.rps)} req/s, CPU steal ${c.run.steal.toFixed(1)}%`).join('; ')}`);
  if (!arg('--keep', undefined)) rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
