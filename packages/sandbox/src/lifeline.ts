// Ties a sandbox's life to the gateway's: a FIFO per run that only the gateway holds open for writing. A
// watcher inside the sandbox reads it; the kernel closes the gateway's end however the gateway ends (kill -9,
// the OOM killer, a crash) and the watcher's read sees EOF, whereupon it kills every process of the sandbox.
//
// bwrap's --die-with-parent alone leaves a gap: bwrap sets PR_SET_PDEATHSIG after it has started, so a
// gateway that dies in between (a busy machine makes that milliseconds) leaves the sandbox running for good.
// EOF on a pipe has no such window: if the gateway is already gone when the watcher opens the FIFO, the first
// read returns EOF at once.
import { execFile } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
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

/** Makes a FIFO in a fresh private directory and holds it open (read-write: the open never blocks). */
export async function openLifeline(parentDir: string = tmpdir()): Promise<Lifeline> {
  const dir = await mkdtemp(join(parentDir, 'hookwise-lifeline-'));
  const path = join(dir, 'lifeline');
  try {
    // Node has no mkfifo(); coreutils' is on every system bwrap runs on.
    await new Promise<void>((resolve, reject) => execFile('mkfifo', ['-m', '0600', path], (error) => (error ? reject(error) : resolve())));
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`cannot make the sandbox's lifeline FIFO in ${dir}: ${(error as Error).message}`);
  }
  // libuv opens with O_CLOEXEC: no child inherits this end, so only this process keeps the line open.
  let fd: number | undefined = openSync(path, constants.O_RDWR);
  return {
    path,
    async close() {
      if (fd === undefined) return;
      closeSync(fd);
      fd = undefined;
      await rm(dir, { recursive: true, force: true });
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
