// Limits per run, with a real gateway process and real sandboxed command agents: a fork bomb, a 2 GB allocation
// and 64 MB of stderr without a newline each end their run with a reason naming the setting, are not retried, and
// leave the gateway answering /health throughout with its memory bounded. The gateway is a child process so that
// its RSS is its own and a misbehaving agent could never take the test runner down with it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeSandbox, processLimitEnforcement } from '@hookwise/sandbox';
import { emptyHome, freePort } from '@hookwise/testing';

const CLI = join(__dirname, '..', '..', '..', 'cli', 'bin', 'run.js');

// Bounded by itself as well: at most 1000 sleepers of 5 s, whatever the limit does (the test is skipped where the
// process limit cannot be enforced). With processes: 64 the shell's fork fails long before.
const BOMB = 'i=0; while [ $i -lt 1000 ]; do sleep 5 & i=$((i+1)); done; wait; echo all-started';
const ALLOC = 'const b = Buffer.alloc(2 * 1024 ** 3 - 1, 1); console.log("allocated", b.length);';
const FLOOD = 'head -c 67108864 /dev/zero | tr "\\0" x >&2; exit 3';

let child: ChildProcess | undefined;
let output = '';
let port = 0;
let dir = '';
let tools = '';
let skip: string | undefined;

function rssOf(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

beforeAll(async () => {
  const found = await probeSandbox();
  if (!found.available) {
    skip = found.reason;
    return;
  }
  if (processLimitEnforcement() === 'none') {
    skip = 'the process limit cannot be enforced here (root without a writable pids cgroup): a fork bomb would not be bounded';
    return;
  }
  dir = mkdtempSync(join(tmpdir(), 'hw-limits-config-'));
  tools = mkdtempSync(join(tmpdir(), 'hw-limits-tools-'));
  writeFileSync(join(tools, 'bomb.sh'), BOMB);
  writeFileSync(join(tools, 'alloc.js'), ALLOC);
  writeFileSync(join(tools, 'flood.sh'), FLOOD);
  port = await freePort();
  const route = (command: string[], sandbox: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
    secret: 'INSECURE_NO_AUTH',
    deliver: 'log',
    agent: { runner: 'command', command, ...extra, sandbox },
  });
  const config = {
    platforms: {
      webhook: {
        enabled: true,
        extra: {
          host: '127.0.0.1',
          port,
          routes: {
            bomb: route(['/bin/sh', join(tools, 'bomb.sh')], { processes: 64 }),
            alloc: route([process.execPath, join(tools, 'alloc.js')], { memory_mb: 1024 }),
            flood: route(['/bin/sh', join(tools, 'flood.sh')], {}, { max_output_kb: 64 }),
          },
        },
      },
    },
    agent: { runner: 'command', command: ['true'], timeout_seconds: 30, sandbox: { mode: 'required', read_only: [tools], processes: 64, memory_mb: 1024 } },
    retry: { max_attempts: 3, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
    store: { backend: 'memory' },
  };
  writeFileSync(join(dir, 'config.yaml'), JSON.stringify(config, null, 2));
  child = spawn(process.execPath, [CLI, 'gateway', 'run', '--log-format', 'json'], {
    env: { PATH: process.env.PATH, HOME: emptyHome(), HOOKWISE_HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + 30_000;
  while (!output.includes('listening on')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the gateway did not start (exit ${child.exitCode}):\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}, 40_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  for (const path of [dir, tools]) if (path) rmSync(path, { recursive: true, force: true });
});

interface Outcome {
  /** The gateway's log lines about this delivery. */
  lines: string[];
  /** Slowest /health answer during the run (ms), and how many polls failed. */
  slowestHealthMs: number;
  healthFailures: number;
  rssBefore: number;
  rssAfter: number;
}

/** Posts to `route` and waits for its job to fail for good, polling /health all the while. */
async function runUntilDead(route: string, id: string): Promise<Outcome> {
  const pid = child!.pid!;
  const rssBefore = rssOf(pid);
  const res = await fetch(`http://127.0.0.1:${port}/webhooks/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': id },
    body: '{}',
  });
  expect(res.status).toBe(202);
  let slowestHealthMs = 0;
  let healthFailures = 0;
  const until = Date.now() + 25_000;
  const mine = () =>
    output
      .split('\n')
      .filter((line) => line.includes(id))
      .map((line) => String((JSON.parse(line) as { message?: unknown }).message));
  while (!mine().some((line) => line.includes('failed for good'))) {
    if (Date.now() > until) throw new Error(`the run of ${id} did not end; log:\n${output.slice(-5000)}`);
    const started = Date.now();
    try {
      const health = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) });
      if (health.status !== 200) healthFailures++;
    } catch {
      healthFailures++;
    }
    slowestHealthMs = Math.max(slowestHealthMs, Date.now() - started);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { lines: mine(), slowestHealthMs, healthFailures, rssBefore, rssAfter: rssOf(pid) };
}

function expectGatewayUnharmed(outcome: Outcome): void {
  expect(outcome.healthFailures).toBe(0);
  expect(outcome.slowestHealthMs).toBeLessThan(1500);
  // The gateway keeps at most max_output_kb of each stream. Its RSS right after a run still holds the chunks it
  // read and dropped but has not collected yet (65 MB was seen once after the 64 MB flood), so the bound leaves
  // room for that garbage; the unbounded reader this guards against grew by 706 MB on the same flood.
  expect(outcome.rssAfter - outcome.rssBefore).toBeLessThan(96 * 1024 * 1024);
}

it('a fork bomb ends its run at agent.sandbox.processes, not retried, and the gateway keeps answering', async () => {
  if (skip) return console.warn(`skipped: ${skip}`);
  const outcome = await runUntilDead('bomb', 'limits-bomb-1');
  const failure = outcome.lines.find((line) => line.includes('failed for good'))!;
  expect(failure).toContain('after 1 attempt(s) (not retryable)');
  expect(failure).toContain('it reached its process limit');
  expect(failure).toContain("agent.sandbox.processes (64 at once); raise route 'bomb' agent.sandbox.processes");
  expect(failure).not.toContain('all-started');
  expectGatewayUnharmed(outcome);
}, 30_000);

it('a 2 GB allocation ends its run at agent.sandbox.memory_mb, not retried, and the gateway keeps answering', async () => {
  if (skip) return console.warn(`skipped: ${skip}`);
  const outcome = await runUntilDead('alloc', 'limits-alloc-1');
  const failure = outcome.lines.find((line) => line.includes('failed for good'))!;
  expect(failure).toContain('after 1 attempt(s) (not retryable)');
  expect(failure).toContain('it ran out of memory');
  expect(failure).toContain('memory_mb (1024 MiB of memory per process)');
  expect(failure).not.toContain('allocated');
  expectGatewayUnharmed(outcome);
}, 30_000);

it('64 MB of stderr without a newline: read in bounded memory, logged as a few lines, the run ends with its tail', async () => {
  if (skip) return console.warn(`skipped: ${skip}`);
  const outcome = await runUntilDead('flood', 'limits-flood-1');
  const failure = outcome.lines.find((line) => line.includes('failed for good'))!;
  expect(failure).toContain('exited with code 3');
  expect(failure.length).toBeLessThan(10_000);
  // Not one log line per 4 KiB cut line, let alone per byte: the first line(s), a notice, a count.
  const stderrLines = outcome.lines.filter((line) => line.includes('stderr]'));
  expect(stderrLines.length).toBeLessThanOrEqual(25);
  expect(stderrLines.join('\n')).toContain('67108864 bytes of stderr in all');
  expectGatewayUnharmed(outcome);
}, 30_000);
