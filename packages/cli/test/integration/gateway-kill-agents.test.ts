// kill -9 of a real gateway's process group (or of the gateway alone) while ten sandboxed agents run, with the machine loaded: within 2 s no
// process of theirs remains, no agent finishes after the kill, and a restarted gateway on the same SQLite store
// runs each event once more and delivers it once.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeSandbox } from '@hookwise/sandbox';
import { ciWebhookPlatform, cli, deliveredCount, env, post } from '../deliveries-process';

const CLI_BIN = join(__dirname, '..', '..', 'bin', 'run.js');
const AGENTS = 10;
const AGENT_SLEEP_MS = 5000;

/**
 * The agent: notes its start in the shared marks dir, sleeps, notes its finish there and answers. argv carries the
 * test's marker (so /proc shows its processes, bwrap's included) and the marks dir.
 */
const AGENT = `
const fs = require('node:fs');
const [, , , marks] = process.argv;
let input = '';
process.stdin.on('data', (c) => (input += c)).on('end', () => {
  const id = /"id":\\s*"([^"]+)"/.exec(input)[1];
  const tag = id + '-' + Date.now() + '-' + Math.random().toString(36).slice(2);
  fs.writeFileSync(marks + '/started-' + tag, '');
  setTimeout(() => {
    fs.writeFileSync(marks + '/finished-' + tag, '');
    process.stdout.write('answer for ' + id);
  }, ${AGENT_SLEEP_MS});
});
`;

interface Gateway {
  child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

/** `hookwise gateway run` in a process group of its own (detached), so the test can kill the group. */
async function startGateway(home: string): Promise<Gateway & { url: string }> {
  const child = spawn(process.execPath, [CLI_BIN, 'gateway', 'run'], { env: env(home), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const waitFor = async (pattern: RegExp, timeoutMs = 20_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(out)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`gateway output never matched ${pattern}:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/);
  const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)![1];
  return { child, url: `http://127.0.0.1:${port}`, output: () => out, waitFor };
}

/** Kills a detached child's whole process group, another child by itself. */
function killAll(child: ChildProcess): void {
  try {
    if (child.spawnargs.includes('gateway')) process.kill(-child.pid!, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    /* already gone */
  }
}

/** Live processes whose command line contains `marker` (a zombie's is empty). */
function pidsWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) found.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return found.filter((pid) => pid !== process.pid);
}

async function until(what: string, probe: () => boolean, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('kill -9 of the gateway while ten sandboxed agents run (real binary, SQLite store)', () => {
  let skip: string | undefined;
  let dirs: string[] = [];
  let marker = '';
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    const found = await probeSandbox();
    if (!found.available) skip = found.reason;
  });

  afterEach(() => {
    for (const child of children.splice(0)) killAll(child);
    // A failing test must not leave sandboxes on a shared machine: its own marked processes, by pid.
    for (const pid of marker ? pidsWith(marker) : []) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone meanwhile */
      }
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  // The process group as the test has it (bwrap and the agents are in it); the gateway alone as the OOM
  // killer does it, which only the sandboxes' lifeline can answer.
  it.each([
    ['its process group', true],
    ['the gateway process alone', false],
  ])(
    'kill -9 of %s: no agent process within 2 s, none finishes after the kill, a restart delivers each event once',
    async (_what, group) => {
      if (skip) return console.warn(`skipped: ${skip}`);
      const home = mkdtempSync(join(tmpdir(), 'hookwise-kill-home-'));
      const tools = mkdtempSync(join(tmpdir(), 'hookwise-kill-tools-'));
      const marks = mkdtempSync(join(tmpdir(), 'hookwise-kill-marks-'));
      dirs = [home, tools, marks];
      marker = `hw-kill-agent-${process.pid}-${Date.now()}`;
      writeFileSync(join(tools, 'agent.js'), AGENT);
      writeFileSync(
        join(home, 'config.yaml'),
        [
          ...ciWebhookPlatform(['prompt: "event {__raw__}"', 'deliver: log']),
          'agent:',
          '  runner: command',
          `  command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(tools, 'agent.js'))}, ${JSON.stringify(marker)}, ${JSON.stringify(marks)}]`,
          `  concurrency: ${AGENTS}`,
          '  timeout_seconds: 60',
          `  sandbox: { mode: required, read_only: [${JSON.stringify(tools)}], writable: [${JSON.stringify(marks)}] }`,
          'retry:',
          '  max_attempts: 3',
          '  base_delay_seconds: 0.1',
        ].join('\n') + '\n',
      );
      const marksOf = (kind: 'started' | 'finished', id?: string): string[] =>
        readdirSync(marks).filter((name) => name.startsWith(`${kind}-`) && (id === undefined || name.startsWith(`${kind}-${id}-`)));
      const ids = Array.from({ length: AGENTS }, (_, i) => `kill-${i + 1}`);

      const first = await startGateway(home);
      children.push(first.child);
      for (const id of ids) expect((await post(first.url, id, { id })).status).toBe(202);
      await until('all ten agents started', () => marksOf('started').length === AGENTS, 15_000);
      expect(pidsWith(marker).length).toBeGreaterThanOrEqual(AGENTS);
      expect(marksOf('finished')).toEqual([]);

      // Load the machine: one bounded busy loop per CPU (at most 4), ~5 s each, killed afterwards in any case.
      const spinners = Array.from({ length: Math.min(4, availableParallelism()) }, () => {
        const spinner = spawn(process.execPath, ['-e', 'const end = Date.now() + 5000; while (Date.now() < end);'], { stdio: 'ignore' });
        children.push(spinner);
        return spinner;
      });
      await new Promise((r) => setTimeout(r, 200));
      const exited = new Promise((r) => first.child.once('exit', r));
      process.kill(group ? -first.child.pid! : first.child.pid!, 'SIGKILL');
      const killedAt = Date.now();
      await exited;
      await until('no process of the agents remains', () => pidsWith(marker).length === 0, 2000);
      const goneMs = Date.now() - killedAt;
      // Past the agents' own sleep: a survivor would have finished by now.
      await new Promise((r) => setTimeout(r, 2000 + Math.max(0, AGENT_SLEEP_MS - 2000 - goneMs)));
      for (const spinner of spinners) spinner.kill('SIGKILL');
      expect(marksOf('finished')).toEqual([]);
      for (const id of ids) expect(deliveredCount(first.output(), id)).toBe(0);
      expect(pidsWith(marker)).toEqual([]);

      // The restarted gateway takes the killed one's jobs over once its heartbeat is stale (5 s) and runs each once.
      const second = await startGateway(home);
      children.push(second.child);
      for (const id of ids) await second.waitFor(new RegExp(`delivered ${id} on route`), 40_000);
      for (const id of ids) {
        expect(deliveredCount(second.output(), id)).toBe(1);
        expect(marksOf('started', id)).toHaveLength(2); // the killed run and the one after the restart
        expect(marksOf('finished', id)).toHaveLength(1);
      }
      const list = await cli(home, ['deliveries', 'list', '--json']);
      const jobs = JSON.parse(list.stdout) as Array<{ deliveryId: string; status: string }>;
      expect(jobs.map((j) => [j.deliveryId, j.status]).sort()).toEqual(ids.map((id) => [id, 'done']).sort());
    },
    75_000,
  );
});
