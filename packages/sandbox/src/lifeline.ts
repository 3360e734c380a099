// Ties a sandbox's life to the gateway's: a FIFO per run that only the gateway holds open for writing. A
// watcher inside the sandbox reads it; the kernel closes the gateway's end however the gateway ends (kill -9,
// the OOM killer, a crash) and the watcher's read sees EOF, whereupon it kills every process of the sandbox.
//
// bwrap's --die-with-parent alone leaves a gap: bwrap sets PR_SET_PDEATHSIG after it has started, so a
// gateway that dies in between (a busy machine makes that milliseconds) leaves the sandbox running for good.
// EOF on a pipe has no such window: if the gateway is already gone when the watcher opens the FIFO, the first
// read returns EOF at once.
//
// The FIFOs are made ahead, BATCH at a time by one `mkfifo`, since spawning it was the larger part of the gateway's
// CPU for a run; each still serves one run and goes with it.
import { execFile } from 'node:child_process';
import { closeSync, constants, openSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the run's lifeline appears inside the sandbox. */
export const LIFELINE_INSIDE = '/run/hookwise/lifeline';

export interface Lifeline {
  /** The FIFO on the host, to bind into the sandbox (SandboxSpec.lifeline). */
  readonly path: string;
  /** Cuts the line: every process still running in the run's sandboxes is killed. Removes the FIFO. */
  close(): Promise<void>;
}

/** FIFOs made by one `mkfifo` (spawning it costs the gateway about 3 ms of CPU, whatever the count). */
const BATCH = 16;

/** FIFOs made ahead in a private directory (0700) of `parentDir`, each handed to one run and removed after it. */
interface Batch {
  dir: string;
  /** Not handed out yet. */
  ready: string[];
  /** Handed out and not closed yet. */
  open: number;
}

interface Pool {
  current?: Batch;
  making?: Promise<Batch>;
}

const pools = new Map<string, Pool>();
const batches = new Set<Batch>();
let exitHook = false;

async function makeBatch(parentDir: string): Promise<Batch> {
  const dir = await mkdtemp(join(parentDir, 'hookwise-lifeline-'));
  const paths = Array.from({ length: BATCH }, (_, i) => join(dir, `lifeline-${i}`));
  try {
    // Node has no mkfifo(); coreutils' is on every system bwrap runs on.
    await new Promise<void>((resolve, reject) => execFile('mkfifo', ['-m', '0600', ...paths], (error) => (error ? reject(error) : resolve())));
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`cannot make the sandbox's lifeline FIFO in ${dir}: ${(error as Error).message}`);
  }
  const batch: Batch = { dir, ready: paths.reverse(), open: 0 };
  batches.add(batch);
  if (!exitHook) {
    exitHook = true;
    // FIFOs made ahead and never used go with the process (a kill -9 leaves an empty private directory).
    process.once('exit', () => {
      for (const left of batches) rmSync(left.dir, { recursive: true, force: true });
    });
  }
  return batch;
}

/** A FIFO of the pool of `parentDir`, made ahead; a new batch is made when the current one runs out. */
async function takeFifo(parentDir: string): Promise<{ path: string; batch: Batch }> {
  const pool = pools.get(parentDir) ?? {};
  pools.set(parentDir, pool);
  while (!pool.current || pool.current.ready.length === 0) {
    pool.making ??= makeBatch(parentDir).finally(() => (pool.making = undefined));
    const made = await pool.making;
    if (!pool.current || pool.current.ready.length === 0) pool.current = made;
  }
  const batch = pool.current;
  batch.open += 1;
  return { path: batch.ready.pop() as string, batch };
}

/** Removes a used FIFO, and its directory once every FIFO of it was used. */
async function release(path: string, batch: Batch): Promise<void> {
  batch.open -= 1;
  await rm(path, { force: true });
  if (batch.ready.length === 0 && batch.open === 0) {
    batches.delete(batch);
    await rm(batch.dir, { recursive: true, force: true });
  }
}

/**
 * A FIFO of its own for one run (in a private directory, made ahead in batches) held open read-write (the open
 * never blocks). Each FIFO serves one run only and is removed when the run closes it.
 */
export async function openLifeline(parentDir: string = tmpdir()): Promise<Lifeline> {
  const { path, batch } = await takeFifo(parentDir);
  // libuv opens with O_CLOEXEC: no child inherits this end, so only this process keeps the line open.
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDWR);
  } catch (error) {
    await release(path, batch);
    throw error;
  }
  return {
    path,
    async close() {
      if (fd === undefined) return;
      closeSync(fd);
      fd = undefined;
      await release(path, batch);
    },
  };
}

/**
 * The shell lines that start the watcher, for the start of an `sh -c` script inside the sandbox (before the
 * command is exec'd). The watcher first opens the FIFO read-write (never blocks), then read-only (no block:
 * a writer, itself, exists), then closes the read-write end, so only the gateway's end keeps it from EOF.
 * Lines an agent might write into its own FIFO are read and ignored. On EOF, `kill -KILL -1` ends every other
 * process of the sandbox's PID namespace; the command (bwrap's initial process) among them, so bwrap's init
 * exits and the kernel ends whatever is left.
 */
export function lifelineWatcher(inside: string = LIFELINE_INSIDE): string {
  return (
    `( trap '' HUP INT TERM; exec 3<>${inside}; exec 4<${inside} 3>&-; ` + 'while read -r _ <&4; do :; done; kill -KILL -1 ) </dev/null >/dev/null 2>&1 & '
  );
}
