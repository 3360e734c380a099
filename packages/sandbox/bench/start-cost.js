#!/usr/bin/env node
// What the sandbox adds to starting an agent process: median wall time from spawn to exit of `true` and of
// `node -e 0`, without the sandbox, inside it without network, and inside it with an egress socket (which
// adds the in-sandbox forwarder, itself a node start). 30 runs each, interleaved so load drift hits all alike.
// Needs the build (npx tsc -b packages/sandbox) and bubblewrap. Usage: node packages/sandbox/bench/start-cost.js
'use strict';
const { spawn } = require('node:child_process');
const { EgressProxy, openSandboxRun, probeSandbox, resolveSandboxPolicy } = require('../dist');

const RUNS = 30;
const env = { PATH: '/usr/local/bin:/usr/bin:/bin' };

function time(plan) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(plan.command, plan.args, { env: plan.env, cwd: plan.cwd, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`${plan.command} exited ${code}`))));
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[(sorted.length - 1) >> 1] + sorted[sorted.length >> 1]) / 2;
};

async function main() {
  const decision = resolveSandboxPolicy('required', await probeSandbox());
  const proxy = await EgressProxy.start();
  const bare = await openSandboxRun({ decision: resolveSandboxPolicy('off', await probeSandbox()), label: 'bench-off' });
  const closed = await openSandboxRun({ decision, label: 'bench-closed' });
  const open = await openSandboxRun({ decision, proxy, label: 'bench-net', network: ['example.org'] });
  const rows = [];
  for (const [name, command, args] of [
    ['true', 'true', []],
    ['node -e 0', 'node', ['-e', '0']],
  ]) {
    const samples = { unsandboxed: [], 'sandbox, no network': [], 'sandbox + egress forwarder': [] };
    for (let i = 0; i < RUNS; i++) {
      samples.unsandboxed.push(await time(bare.plan(command, args, env)));
      samples['sandbox, no network'].push(await time(closed.plan(command, args, env)));
      samples['sandbox + egress forwarder'].push(await time(open.plan(command, args, env)));
    }
    const base = median(samples.unsandboxed);
    for (const [variant, values] of Object.entries(samples)) rows.push({ command: name, variant, median: median(values), added: median(values) - base });
  }
  await Promise.all([bare.close(), closed.close(), open.close(), proxy.close()]);
  console.log(`| command | run | median start-to-exit (ms, ${RUNS} runs) | added by the sandbox (ms) |`);
  console.log('|---|---|---|---|');
  for (const row of rows)
    console.log(`| \`${row.command}\` | ${row.variant} | ${row.median.toFixed(1)} | ${row.variant === 'unsandboxed' ? '-' : row.added.toFixed(1)} |`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
