// The process reaper against real processes: a parent node process (its script written into a temp dir, core
// loaded from source through ts-node) starts children with runProcess and is then killed or exits; the
// children's process groups must not outlive it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isProcessAlive } from '@hookwise/testing';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

const REPO = resolve(TEST_DIR, '../../..');
const CORE_SRC = resolve(TEST_DIR, '../src/common');
const posix = process.platform !== 'win32' && existsSync('/bin/sh');
const describePosix = posix ? describe : describe.skip;

let dir: string;
const started: ChildProcess[] = [];
const pidsToClean: number[] = [];
let parentOutput = (): string => '';

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-reaper-'));
});

afterEach(() => {
  // A failed test must not leave its processes behind either.
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const pid of pidsToClean.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

interface Parent {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/**
 * Starts `node <dir>/parent.js` with `body` after a prelude that loads runProcess and a few helpers:
 * `sh(script)` runs a shell line through runProcess, with `save <pid> <name>` writing `<dir>/<name>.pid`;
 * `record(name, pid)` does the same from JavaScript; `whenExists(file)` waits for `<dir>/<file>`.
 */
function startParent(body: string): Parent {
  const file = join(dir, 'parent.js');
  writeFileSync(
    file,
    `const { runProcess } = require(${JSON.stringify(join(CORE_SRC, 'process.ts'))});
const { reaperPid } = require(${JSON.stringify(join(CORE_SRC, 'process-reaper.ts'))});
const fs = require('node:fs');
const path = require('node:path');
const dir = ${JSON.stringify(dir)};
const file = (name) => path.join(dir, name);
const whenExists = (name) => new Promise((done) => { const t = setInterval(() => { if (fs.existsSync(file(name))) { clearInterval(t); done(); } }, 20); });
const record = (name, pid) => { fs.writeFileSync(file(name + '.tmp'), String(pid)); fs.renameSync(file(name + '.tmp'), file(name + '.pid')); };
const save = 'save() { echo "$1" > "$HW_DIR/$2.tmp" && mv "$HW_DIR/$2.tmp" "$HW_DIR/$2.pid"; }\\n';
const sh = (script) => runProcess({ command: '/bin/sh', args: ['-c', save + script], env: { ...process.env, HW_DIR: dir }, killGraceMs: 1000 });
${body}
`,
  );
  const child = spawn(process.execPath, ['-r', 'ts-node/register', file], {
    cwd: REPO,
    env: { ...process.env, TS_NODE_PROJECT: join(REPO, 'tsconfig.test.json'), TS_NODE_TRANSPILE_ONLY: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  parentOutput = () => output;
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
  return { child, output: () => output, exited };
}

async function waitFor(what: string, condition: () => boolean, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the parent said: ${parentOutput() || '(nothing)'}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits until `<dir>/<name>` holds a pid and returns it (registered for clean-up). */
async function pidFrom(name: string): Promise<number> {
  const file = join(dir, name);
  await waitFor(name, () => existsSync(file) && /^\d+\s*$/.test(readFileSync(file, 'utf8')));
  const pid = Number(readFileSync(file, 'utf8'));
  pidsToClean.push(pid);
  return pid;
}

// Starts `sleep 300` (the shell execs it: same pid, its own group) and records its pid and the reaper's.
const SLEEPING_PARENT = `
sh('save $$ sleep && exec sleep 300');
whenExists('sleep.pid').then(() => record('reaper', reaperPid()));
setInterval(() => {}, 1000);
`;

/**
 * Waits for the parent's `record('spawned', ...)` right after its sh(): by then runProcess has told the reaper
 * about the group. A kill in the instant between the spawn and that (the shell may already be running) is
 * the documented gap in process-reaper.ts, which a loaded machine would otherwise hit now and then here.
 */
async function spawned(): Promise<void> {
  await waitFor('the parent to pass the spawn', () => existsSync(join(dir, 'spawned.pid')));
}

describePosix('process reaper', () => {
  jest.setTimeout(15_000);

  it('kill -9 of the parent ends the process group it started, and the reaper exits after it', async () => {
    const parent = startParent(SLEEPING_PARENT);
    const sleep = await pidFrom('sleep.pid');
    const reaper = await pidFrom('reaper.pid');
    expect(isProcessAlive(sleep)).toBe(true);
    expect(isProcessAlive(reaper)).toBe(true);

    parent.child.kill('SIGKILL');
    await waitFor('the sleep to be gone', () => !isProcessAlive(sleep), 5000);
    await waitFor('the reaper to be gone', () => !isProcessAlive(reaper), 5000);
  });

  it('kill -9 of the parent ends grandchildren in the group too', async () => {
    const parent = startParent(`
sh('save $$ leader; sleep 300 & save $! grandchild; wait');
record('spawned', process.pid);
setInterval(() => {}, 1000);
`);
    const leader = await pidFrom('leader.pid');
    const grandchild = await pidFrom('grandchild.pid');
    await spawned();
    expect(isProcessAlive(grandchild)).toBe(true);

    parent.child.kill('SIGKILL');
    await waitFor('the grandchild to be gone', () => !isProcessAlive(grandchild), 5000);
    await waitFor('the leader to be gone', () => !isProcessAlive(leader), 5000);
  });

  it('the reaper ignores INT, TERM and HUP (Ctrl-C in a terminal) and still cleans up', async () => {
    const parent = startParent(SLEEPING_PARENT);
    const sleep = await pidFrom('sleep.pid');
    const reaper = await pidFrom('reaper.pid');
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.kill(reaper, signal);
    await new Promise((r) => setTimeout(r, 200));
    expect(isProcessAlive(reaper)).toBe(true);

    parent.child.kill('SIGKILL');
    await waitFor('the sleep to be gone', () => !isProcessAlive(sleep), 5000);
  });

  it('a reaper that died is replaced at once, and the replacement knows the groups that were already running', async () => {
    const parent = startParent(`
sh('save $$ first && exec sleep 300');
whenExists('first.pid').then(() => {
  const first = reaperPid();
  record('reaper', first);
  const t = setInterval(() => {
    const now = reaperPid();
    if (now !== undefined && now !== first) { clearInterval(t); record('replacement', now); }
  }, 20);
});
whenExists('go').then(() => {
  sh('save $$ second && exec sleep 300');
  record('spawned', process.pid);
});
setInterval(() => {}, 1000);
`);
    const first = await pidFrom('first.pid');
    const reaper = await pidFrom('reaper.pid');
    process.kill(reaper, 'SIGKILL');
    // No new spawn needed: the parent replaces it because a group is still running.
    const replacement = await pidFrom('replacement.pid');
    writeFileSync(join(dir, 'go'), '');
    const second = await pidFrom('second.pid');
    await spawned();

    parent.child.kill('SIGKILL');
    await waitFor('both sleeps to be gone', () => !isProcessAlive(first) && !isProcessAlive(second), 5000);
    await waitFor('the replacement reaper to be gone', () => !isProcessAlive(replacement), 5000);
  });

  it('a parent that exits while a child runs takes the child group with it; a finished child is left alone', async () => {
    const parent = startParent(`
(async () => {
  const done = await sh('echo finished');
  if (done.stdout !== 'finished\\n' || done.exitCode !== 0) throw new Error('unexpected ' + JSON.stringify(done));
  sh('sleep 300 & save $! bg; wait');
  await whenExists('bg.pid');
  record('reaper', reaperPid());
  process.exit(0);
})();
`);
    const background = await pidFrom('bg.pid');
    const reaper = await pidFrom('reaper.pid');
    expect(await parent.exited).toBe(0);
    expect(parent.output()).toBe('');
    await waitFor('the background sleep to be gone', () => !isProcessAlive(background), 5000);
    await waitFor('the reaper to be gone', () => !isProcessAlive(reaper), 5000);
  });

  it('does not keep the parent alive: one short run, then the parent exits on its own and leaves nothing', async () => {
    const parent = startParent(`
sh('true').then((result) => {
  record('reaper', reaperPid());
  if (result.exitCode !== 0) throw new Error('unexpected ' + JSON.stringify(result));
});
`);
    const reaper = await pidFrom('reaper.pid');
    let timer: NodeJS.Timeout | undefined;
    const stillRunning = new Promise<'still running'>((r) => (timer = setTimeout(() => r('still running'), 5000)));
    const exitedAt = await Promise.race([parent.exited, stillRunning]);
    clearTimeout(timer);
    expect(exitedAt).toBe(0);
    expect(parent.output()).toBe('');
    await waitFor('the reaper to be gone', () => !isProcessAlive(reaper), 2000);
  });
});
