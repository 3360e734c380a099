// One load generator in a process of its own, so that several can drive several servers at once without sharing
// the bench process's one thread. Usage: node load-child.js '<json options of drive()>' plus `warmup` (s).
// It warms up, prints "ready", waits for a line on stdin, runs the measured load and prints its result as JSON
// (with its own CPU time), then exits.
'use strict';
const { createInterface } = require('node:readline');
const { drive } = require('./load');

async function main() {
  const options = JSON.parse(process.argv[2]);
  if (options.warmup) await drive({ ...options, duration: options.warmup });
  process.stdout.write('ready\n');
  await new Promise((resolve) => createInterface({ input: process.stdin }).once('line', resolve));
  const before = process.cpuUsage();
  const result = await drive(options);
  const cpu = process.cpuUsage(before);
  process.stdout.write(`${JSON.stringify({ ...result, cpuSeconds: (cpu.user + cpu.system) / 1e6 })}\n`);
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
