// A sandbox never outlives the gateway: a gateway-like parent (a node process using this package from source
// through ts-node) starts sandboxed agents, busy loops and sleeps, half of them with the egress forwarder, and
// is then killed with SIGKILL. Within 2 s nothing of theirs may remain: not bwrap, not socat, not an agent.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pidsWith } from '../helpers';

const REPO = resolve(__dirname, '../../../..');
const bwrap = spawnSync('sh', ['-c', 'command -v bwrap']).stdout.toString().trim();
const testWithBwrap = bwrap ? test : test.skip;
const AGENTS = 8;

let dir: string;
let marker: string;
const parents: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-sbx-death-'));
  marker = `hw-sandbox-death-${process.pid}-${Date.now()}`;
});

afterEach(() => {
  for (const child of parents.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  // A failing test must not leave busy loops on a shared machine: its own marked processes, by pid.
  for (const pid of pidsWith(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone meanwhile */
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts the parent: it opens AGENTS runs (the odd ones with network, so with the socat forwarder), starts
 * one agent in each (`sh -c '<loop>; :' <marker>-<i>`: a busy loop or a sleep), prints "started", then runs
 * `then` (JavaScript).
 */
function startParent(then: string): { child: ChildProcess; output(): string } {
  const file = join(dir, 'gateway.js');
  writeFileSync(
    file,
    `// @hookwise/core from source, like the sandbox package itself (no build needed).
const Module = require('node:module');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === '@hookwise/core') request = ${JSON.stringify(join(REPO, 'packages/core/src/index.ts'))};
  return resolveFilename.call(this, request, ...rest);
};
const { EgressProxy, openSandboxRun, probeSandbox, resolveSandboxPolicy } = require(${JSON.stringify(join(REPO, 'packages/sandbox/src/index.ts'))});
(async () => {
  const proxy = await EgressProxy.start({ parentDir: ${JSON.stringify(dir)} });
  const decision = resolveSandboxPolicy('required', await probeSandbox());
  const runs = [];
  for (let i = 0; i < ${AGENTS}; i++)
    runs.push(await openSandboxRun({ decision, proxy, label: 'agent ' + i, network: i % 2 ? ['127.0.0.1'] : [], workParent: ${JSON.stringify(dir)} }));
  runs.forEach((run, i) => {
    const loop = i % 2 ? 'while :; do :; done' : 'sleep 300';
    run.spawn('sh', ['-c', "sh -c '" + loop + "; :' ${marker}-" + i], { PATH: '/usr/bin:/bin' }, 'ignore');
  });
  console.log('started');
  ${then}
  setInterval(() => {}, 1000);
})().catch((error) => { console.error(error); process.exit(1); });
`,
  );
  const child = spawn(process.execPath, ['-r', 'ts-node/register', file], {
    cwd: REPO,
    env: { ...process.env, TS_NODE_PROJECT: join(REPO, 'tsconfig.test.json'), TS_NODE_TRANSPILE_ONLY: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  parents.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return { child, output: () => output };
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

/** The agents whose inner shell runs (its argv, NUL-separated in /proc/<pid>/cmdline, is `sh -c '<loop>; :' <marker>-<i>`). */
function agents(): number[] {
  const found: number[] = [];
  for (let i = 0; i < AGENTS; i++)
    if (pidsWith(`-c\u0000${i % 2 ? 'while :; do :; done' : 'sleep 300'}; :\u0000${marker}-${i}\u0000`).length > 0) found.push(i);
  return found;
}

testWithBwrap(
  'kill -9 of the gateway after its agents run ends every process of every sandbox within 2 s',
  async () => {
    const parent = startParent('');
    const exited = new Promise((done) => parent.child.once('close', done));
    // 15 s: ts-node compiling the package on a loaded machine.
    const running = await waitFor(() => agents().length === AGENTS, 15_000);
    expect({ running, said: running ? '' : parent.output() }).toEqual({ running: true, said: '' });
    parent.child.kill('SIGKILL');
    await exited;
    await waitFor(() => pidsWith(marker).length === 0, 2000);
    expect(pidsWith(marker)).toEqual([]);
  },
  25_000,
);

testWithBwrap(
  'a gateway killed the instant after it spawned its sandboxes leaves none running (bwrap has not yet armed --die-with-parent)',
  async () => {
    // The parent kills itself with SIGKILL right after the spawn calls: bwrap is still starting.
    const parent = startParent("process.kill(process.pid, 'SIGKILL');");
    await new Promise((done) => parent.child.once('close', done));
    expect(parent.output()).toContain('started');
    // The sandboxes come up after their gateway is gone (if they would), then must end within 2 s.
    await new Promise((r) => setTimeout(r, 1000));
    await waitFor(() => pidsWith(marker).length === 0, 2000);
    expect(pidsWith(marker)).toEqual([]);
  },
  25_000,
);
