// CLI start-up: short `hookwise` commands, each in a fresh process as an agent's terminal tool or a script runs
// them, against a throw-away config dir (one static route, the sqlite store, one subscription). The commands take
// turns, round by round, so a change in the machine's load affects them all alike.
// CPU is the child's user + system time: the kernel adds a reaped child's times to this process's cutime and
// cstime (/proc/self/stat, Linux), counted in clock ticks, so it is shown as the mean over the runs.
'use strict';
const { execFileSync, spawnSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ms, median, table } = require('../lib/format');

const ROOT = path.resolve(__dirname, '..', '..');
const BIN = path.join(ROOT, 'packages/cli/bin/run.js');

const COMMANDS = [
  ['--version'],
  ['--help'],
  ['webhook', 'list'],
  ['webhook', 'subscribe', 'bench-cli', '--events', 'push', '--prompt', 'Bench {ref}'],
  ['skills', 'list'],
  ['plugins', 'list'],
  ['deliveries', 'list'],
];

const CONFIG = `platforms:
  webhook:
    enabled: true
    extra:
      host: 127.0.0.1
      secret: bench-cli-global-secret-0123456789
      routes:
        ci:
          prompt: "Push to {ref}"
agent:
  runner: echo
`;

function clockTicks() {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** CPU seconds of this process's reaped children so far, or undefined without /proc. */
function childrenCpu(ticks) {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after "pid (comm) " start at field 3 (state); cutime and cstime are fields 16 and 17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / ticks;
  } catch {
    return undefined;
  }
}

/**
 * Runs every command `runs` times (after one untimed run each), in turns; returns per command the wall times
 * (ms) and the mean CPU per run (ms), or the error of a command that failed.
 */
function measure({ bin = BIN, commands = COMMANDS, runs, env }) {
  const ticks = clockTicks();
  const results = commands.map((args) => ({ args, walls: [], cpu: 0, error: undefined }));
  const once = (r) => {
    const cpuBefore = childrenCpu(ticks);
    const start = process.hrtime.bigint();
    const child = spawnSync(process.execPath, [bin, ...r.args], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
    const wall = Number(process.hrtime.bigint() - start) / 1e6;
    const cpuAfter = childrenCpu(ticks);
    if (child.status !== 0) {
      r.error = `exit ${child.status ?? child.signal}: ${(child.stderr || child.stdout || '').trim().split('\n')[0]}`;
      return;
    }
    r.walls.push(wall);
    r.cpu = cpuBefore === undefined || cpuAfter === undefined ? NaN : r.cpu + (cpuAfter - cpuBefore) * 1000;
  };
  for (const r of results) once(r);
  for (const r of results) {
    r.walls = [];
    r.cpu = 0;
  }
  for (let round = 0; round < runs; round += 1) for (const r of results) if (!r.error) once(r);
  return results.map((r) => ({
    command: r.args.map((a) => (/\s/.test(a) ? `'${a}'` : a)).join(' '),
    walls: r.walls,
    cpuMs: r.walls.length ? r.cpu / r.walls.length : NaN,
    error: r.error,
  }));
}

async function run(options, log) {
  const runs = options.cliRuns;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hookwise-bench-cli-'));
  try {
    writeFileSync(path.join(dir, 'config.yaml'), CONFIG);
    const results = measure({ runs, env: { ...process.env, HOOKWISE_HOME: dir } });
    for (const r of results) {
      log(r.error ? `  hookwise ${r.command}: ${r.error}` : `  hookwise ${r.command}: wall ${ms(median(r.walls))}, CPU ${ms(r.cpuMs)}`);
    }
    const rows = results.map((r) => [
      `\`hookwise ${r.command}\``,
      String(r.walls.length),
      ms(median(r.walls)),
      ms(Math.min(...r.walls)),
      ms(r.cpuMs),
      r.error ?? '',
    ]);
    const markdown = [
      `Each command ${runs} times in a fresh process (\`node packages/cli/bin/run.js …\`, after one untimed run), the commands taking turns; config dir with one static route, one subscription and the sqlite store. CPU: the child's user + system time, mean per run.`,
      '',
      table(['command', 'runs', 'wall (median)', 'wall (min)', 'CPU per run', 'error'], rows),
    ].join('\n');
    return { title: 'CLI start-up', markdown, goals: [] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { run, measure, COMMANDS };
