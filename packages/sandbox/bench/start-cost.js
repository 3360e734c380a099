#!/usr/bin/env node
// What the sandbox adds to starting an agent process: median wall time from spawn to exit of `true` and of
// `node -e 0`, without the sandbox, inside it without network, and inside it with an egress socket (which
// adds the in-sandbox forwarder). 30 runs each, interleaved so load drift hits all alike. Every sandboxed start
// is planned by @hookwise/sandbox's command builder (openSandboxRun().plan), as an agent run's is.
// Needs the build (npx tsc -b packages/sandbox) and bubblewrap. Usage: node packages/sandbox/bench/start-cost.js
// `npm run bench` (bench/scenarios/sandbox-start.js) runs `measureStartCost` too.
'use strict';
const { spawn } = require('node:child_process');
const { EgressProxy, openSandboxRun, probeSandbox, resolveSandboxPolicy } = require('../dist');

const RUNS = 30;
const env = { PATH: '/usr/local/bin:/usr/bin:/bin' };
const COMMANDS = [
  ['true', 'true', []],
  ['node -e 0', 'node', ['-e', '0']],
];

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

/**
 * Rows `{ command, variant, median, added }` (ms; `added` against the unsandboxed start of the same command in the
 * same run), for `commands` ([name, program, args]) started `runs` times each way, interleaved.
 */
async function measureStartCost({ runs = RUNS, commands = COMMANDS } = {}) {
  const probe = await probeSandbox();
  const decision = resolveSandboxPolicy('required', probe);
  const proxy = await EgressProxy.start();
  const bare = await openSandboxRun({ decision: resolveSandboxPolicy('off', probe), label: 'bench-off' });
  const closed = await openSandboxRun({ decision, label: 'bench-closed' });
  const open = await openSandboxRun({ decision, proxy, label: 'bench-net', network: ['example.org'] });
  const rows = [];
  try {
    for (const [name, command, args] of commands) {
      const samples = { unsandboxed: [], 'sandbox, no network': [], 'sandbox + egress forwarder': [] };
      for (let i = 0; i < runs; i++) {
        samples.unsandboxed.push(await time(bare.plan(command, args, env)));
        samples['sandbox, no network'].push(await time(closed.plan(command, args, env)));
        samples['sandbox + egress forwarder'].push(await time(open.plan(command, args, env)));
      }
      const base = median(samples.unsandboxed);
      for (const [variant, values] of Object.entries(samples)) rows.push({ command: name, variant, median: median(values), added: median(values) - base });
    }
  } finally {
    await Promise.all([bare.close(), closed.close(), open.close(), proxy.close()]);
  }
  return rows;
}

async function main() {
  const rows = await measureStartCost();
  console.log(`| command | run | median start-to-exit (ms, ${RUNS} runs) | added by the sandbox (ms) |`);
  console.log('|---|---|---|---|');
  for (const row of rows)
    console.log(`| \`${row.command}\` | ${row.variant} | ${row.median.toFixed(1)} | ${row.variant === 'unsandboxed' ? '-' : row.added.toFixed(1)} |`);
}

module.exports = { measureStartCost };

if (require.main === module)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
