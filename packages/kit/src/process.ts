// Runs one child process for an agent runner or tool: no shell, own process group, timeout, abort, output caps.
// Shared by the `command` runner and the `openai` runner's terminal tool so both kill and cap the same way.
import { spawn } from 'node:child_process';
import { ensureReaper, trackProcessGroup, untrackProcessGroup } from './process-reaper';

export interface RunProcessOptions {
  /** Program to run (looked up on PATH); never passed through a shell. */
  command: string;
  args?: readonly string[];
  cwd?: string;
  /** The child's complete environment (not merged with process.env here). */
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; without it stdin is not connected at all. */
  input?: string;
  /** Kills the process group when exceeded; 0 or undefined means no own timeout. */
  timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL. Default 2000 ms. */
  killGraceMs?: number;
  /** Stdout beyond this many bytes is read and dropped. Default 1 MiB. */
  maxOutputBytes?: number;
  /** Only the last this many bytes of stderr are kept. Default 64 KiB. */
  maxStderrBytes?: number;
  /** Aborting kills the process group like a timeout does. */
  signal?: AbortSignal;
  /** Called with each complete stderr line (and the unterminated rest at the end). */
  onStderrLine?(line: string): void;
}

export interface ProcessResult {
  stdout: string;
  /** The tail of stderr (see maxStderrBytes). */
  stderr: string;
  exitCode: number | null;
  /** The signal that ended the process, if any. */
  exitSignal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
}

const DEFAULT_MAX_OUTPUT = 1024 * 1024;
const DEFAULT_MAX_STDERR = 64 * 1024;
const DEFAULT_KILL_GRACE_MS = 2000;
// A background grandchild may keep the pipes open after the leader exits; do not wait for it longer than this.
const PIPE_DRAIN_AFTER_EXIT_MS = 200;

/** Signals a whole process group; a group that is already gone is not an error. */
function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* ESRCH: nothing left in the group */
  }
}

/** True while the group has a member (a member we may not signal counts: EPERM). */
function groupExists(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Spawns `command` detached (its own process group) so that a timeout or abort kills the whole tree:
 * SIGTERM to the group, SIGKILL after the grace period. When the leader exits, whatever it left running in
 * its group is terminated too, so a run never leaves processes behind. The group is also handed to the
 * process reaper (./process-reaper), which ends it the same way if this process dies first, even by SIGKILL.
 * Rejects only when the program cannot be started (e.g. ENOENT); every other outcome resolves with a
 * ProcessResult.
 */
export function runProcess(options: RunProcessOptions): Promise<ProcessResult> {
  const maxOut = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const maxErr = options.maxStderrBytes ?? DEFAULT_MAX_STDERR;
  const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;

  return new Promise<ProcessResult>((resolve, reject) => {
    if (options.signal?.aborted) {
      resolve({ stdout: '', stderr: '', exitCode: null, exitSignal: null, timedOut: false, aborted: true, stdoutTruncated: false, stderrTruncated: false });
      return;
    }
    ensureReaper();
    const child = spawn(options.command, [...(options.args ?? [])], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    if (child.pid !== undefined) trackProcessGroup(child.pid, grace);

    const out: Buffer[] = [];
    let outBytes = 0;
    let stdoutTruncated = false;
    let err: Buffer[] = [];
    let errBytes = 0;
    let stderrTruncated = false;
    let lineRest = '';
    let timedOut = false;
    let aborted = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    let leaderExited = false;
    // Once the group is known to be empty its id may be reused by an unrelated process group: no more signals.
    let groupGone = false;
    const forgetGroup = (pid: number): void => {
      groupGone = true;
      untrackProcessGroup(pid);
    };

    // Not cleared when the run settles: a SIGTERM-ignoring straggler in the group must still get its SIGKILL.
    const terminate = (): void => {
      if (child.pid === undefined || groupGone) return;
      const pid = child.pid;
      killGroup(pid, 'SIGTERM');
      setTimeout(() => {
        if (groupGone) return;
        killGroup(pid, 'SIGKILL');
        if (leaderExited) forgetGroup(pid); // SIGKILL to the whole group leaves no member behind
      }, grace).unref();
    };
    const onAbort = (): void => {
      aborted = true;
      terminate();
    };

    const finish = (): void => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      options.signal?.removeEventListener('abort', onAbort);
      if (lineRest && options.onStderrLine) options.onStderrLine(lineRest);
      if (errBytes > maxErr) {
        const all = Buffer.concat(err);
        err = [all.subarray(all.length - maxErr)];
        stderrTruncated = true;
      }
      resolve({
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        exitCode,
        exitSignal,
        timedOut,
        aborted,
        stdoutTruncated,
        stderrTruncated,
      });
    };

    child.once('error', (error) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      options.signal?.removeEventListener('abort', onAbort);
      reject(error);
    });

    child.stdout!.on('data', (chunk: Buffer) => {
      if (outBytes >= maxOut) {
        stdoutTruncated = true;
        return; // keep reading so the child never blocks on a full pipe
      }
      const room = maxOut - outBytes;
      if (chunk.length > room) {
        stdoutTruncated = true;
        chunk = chunk.subarray(0, room);
      }
      out.push(chunk);
      outBytes += chunk.length;
    });

    child.stderr!.on('data', (chunk: Buffer) => {
      err.push(chunk);
      errBytes += chunk.length;
      if (errBytes > maxErr * 2) {
        // Compact now and then; only the tail is worth keeping.
        const all = Buffer.concat(err);
        err = [all.subarray(all.length - maxErr)];
        errBytes = maxErr;
        stderrTruncated = true;
      }
      if (options.onStderrLine) {
        const lines = (lineRest + chunk.toString('utf8')).split('\n');
        lineRest = lines.pop() ?? '';
        for (const line of lines) options.onStderrLine(line.replace(/\r$/, ''));
      }
    });

    if (options.input !== undefined && child.stdin) {
      // A child that never reads stdin closes the pipe early; that is its business, not a failure.
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input);
    }

    child.once('exit', (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      leaderExited = true;
      // Leftovers in the group (background jobs) are ended; see the function comment.
      if (child.pid !== undefined && !groupExists(child.pid)) forgetGroup(child.pid);
      else terminate();
      timers.push(
        setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          finish();
        }, PIPE_DRAIN_AFTER_EXIT_MS),
      );
    });

    child.once('close', finish);

    if (options.timeoutMs && options.timeoutMs > 0) {
      timers.push(
        setTimeout(() => {
          timedOut = true;
          terminate();
        }, options.timeoutMs),
      );
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
