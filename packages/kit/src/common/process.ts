// Runs one child process for an agent runner or tool: no shell, own process group, timeout, abort, output caps.
// Shared by the `command` runner and the `openai` runner's terminal tool so both kill and cap the same way.
import { spawn } from 'node:child_process';
import { BoundedCapture, LineSplitter } from './bounded-output';
import { ensureReaper, trackProcessGroup, untrackProcessGroup } from './process-reaper';

export interface RunProcessOptions {
  /** Program to run (looked up on PATH); never passed through a shell. */
  command: string;
  args?: readonly string[];
  cwd?: string;
  /**
   * The child's complete environment (not merged with process.env here). Default: `childEnvironment(process.env)`,
   * the few variables programs need to run and nothing secret, never the gateway's whole environment.
   */
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; without it stdin is not connected at all. */
  input?: string;
  /** Kills the process group when exceeded; 0 or undefined means no own timeout. */
  timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL. Default 2000 ms. */
  killGraceMs?: number;
  /** Stdout beyond this many bytes is read and dropped. Default 1 MiB. */
  maxOutputBytes?: number;
  /**
   * At most this many bytes of stderr are kept: its first eighth (at most 8 KiB) and the rest from its end, with a
   * marker naming the bytes left out between them. Default 64 KiB.
   */
  maxStderrBytes?: number;
  /** Aborting kills the process group like a timeout does. */
  signal?: AbortSignal;
  /**
   * Called with each complete stderr line (and the unterminated rest at the end). A line longer than
   * maxStderrLineBytes is passed cut, with the number of bytes cut.
   */
  onStderrLine?(line: string, cutBytes: number): void;
  /** Longest stderr line passed to onStderrLine. Default 4 KiB. */
  maxStderrLineBytes?: number;
}

export interface ProcessResult {
  stdout: string;
  /** The head and tail of stderr (see maxStderrBytes). */
  stderr: string;
  /** Bytes the child wrote to stdout and to stderr, kept or not. */
  stdoutBytes: number;
  stderrBytes: number;
  exitCode: number | null;
  /** The signal that ended the process, if any. */
  exitSignal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
}

/**
 * What every child gets from its parent's environment unless told otherwise: what programs need to find
 * themselves, their home, the locale and a temp dir. Nothing here holds a credential.
 */
export const BASE_CHILD_ENV: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'TERM',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
];

/** Names that hold credentials by convention: never passed by `inherit` unless listed by name. */
const SECRET_NAME = /(^|_)(SECRET|SECRETS|TOKEN|PASSWORD|PASSWD|PASS|API_KEY|APIKEY|PRIVATE_KEY|CREDENTIALS?|AUTH)(_|$)/i;

/** True for a variable name that holds a credential by convention (WEBHOOK_SECRET, GH_TOKEN, OPENAI_API_KEY, ...). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export interface ChildEnvironmentOptions {
  /** Names passed from `from` as they are, secrets included: the allowlist. */
  allow?: readonly string[];
  /** Values set for the child (win over everything else). */
  set?: Readonly<Record<string, string>>;
  /**
   * Pass all of `from`, except variables whose name looks like a credential or whose value `isSecret` knows,
   * unless they are in `allow`. Default false: only BASE_CHILD_ENV and `allow`.
   */
  inherit?: boolean;
  /** The gateway's own secrets by value (route secrets may sit in any variable): never passed unless allowed. */
  isSecret?: (value: string) => boolean;
}

/**
 * A child's environment built from `from` (the gateway's): BASE_CHILD_ENV and the LC_* locale variables, the
 * names in `allow`, then `set`. A webhook secret, a route secret or a token (GH_TOKEN) reaches an agent only
 * when the configuration names it.
 */
export function childEnvironment(from: NodeJS.ProcessEnv, options: ChildEnvironmentOptions = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const allowed = new Set(options.allow ?? []);
  for (const [name, value] of Object.entries(from)) {
    if (value === undefined) continue;
    if (allowed.has(name)) env[name] = value;
    else if (BASE_CHILD_ENV.includes(name) || name.startsWith('LC_')) env[name] = value;
    else if (options.inherit && !isSecretName(name) && !options.isSecret?.(value)) env[name] = value;
  }
  return { ...env, ...options.set };
}

/** Linux's limit on one argument or environment entry (MAX_ARG_STRLEN, 32 pages), its terminating NUL included. */
export const MAX_ARG_BYTES = 128 * 1024;

/** A child that cannot be started because of what it would be given (not because the program is missing). */
export class ProcessInputError extends Error {
  readonly code = 'ERR_HOOKWISE_PROCESS_INPUT';

  constructor(
    message: string,
    /** Where the bad value is: `argument 2`, `environment variable HOOKWISE_EVENT`. */
    readonly where: string,
  ) {
    super(message);
    this.name = 'ProcessInputError';
  }
}

/**
 * Why argv (the program first, then its arguments) or the environment cannot be handed to a child, or
 * undefined: a NUL byte (the OS ends the string there, and node refuses it) or an entry longer than one argument
 * may be. Checked before spawning, so that the error says so instead of looking like a missing program.
 */
export function processInputProblem(args: readonly string[], env: NodeJS.ProcessEnv | undefined): ProcessInputError | undefined {
  for (const [index, arg] of args.entries()) {
    const where = index === 0 ? 'the program name' : `argument ${index}`;
    if (arg.includes('\u0000')) return new ProcessInputError(`${where} contains a NUL byte, which cannot be passed to a program`, where);
    const bytes = Buffer.byteLength(arg) + 1;
    if (bytes > MAX_ARG_BYTES)
      return new ProcessInputError(`${where} is ${bytes - 1} bytes, more than one command-line argument can hold (${MAX_ARG_BYTES - 1})`, where);
  }
  for (const [name, value] of Object.entries(env ?? {})) {
    if (value === undefined) continue;
    const where = `environment variable ${name}`;
    if (name.includes('\u0000') || value.includes('\u0000'))
      return new ProcessInputError(`${where} contains a NUL byte, which cannot be passed to a program`, where);
    const bytes = Buffer.byteLength(name) + Buffer.byteLength(value) + 2;
    if (bytes > MAX_ARG_BYTES)
      return new ProcessInputError(`${where} is ${bytes - 2} bytes, more than one environment entry can hold (${MAX_ARG_BYTES - 2})`, where);
  }
  return undefined;
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
 * Rejects only when the program cannot be started: a ProcessInputError when an argument or variable cannot be
 * passed (NUL byte, too long), otherwise the spawn error (ENOENT, EACCES, E2BIG for everything together); every
 * other outcome resolves with a ProcessResult.
 */
export function runProcess(options: RunProcessOptions): Promise<ProcessResult> {
  const maxOut = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const maxErr = options.maxStderrBytes ?? DEFAULT_MAX_STDERR;
  const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;

  return new Promise<ProcessResult>((resolve, reject) => {
    if (options.signal?.aborted) {
      resolve({
        stdout: '',
        stderr: '',
        stdoutBytes: 0,
        stderrBytes: 0,
        exitCode: null,
        exitSignal: null,
        timedOut: false,
        aborted: true,
        stdoutTruncated: false,
        stderrTruncated: false,
      });
      return;
    }
    const env = options.env ?? childEnvironment(process.env);
    const problem = processInputProblem([options.command, ...(options.args ?? [])], env);
    if (problem) {
      reject(problem);
      return;
    }
    ensureReaper();
    const child = spawn(options.command, [...(options.args ?? [])], {
      cwd: options.cwd,
      env,
      detached: true,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    if (child.pid !== undefined) trackProcessGroup(child.pid, grace);

    const out: Buffer[] = [];
    let outBytes = 0;
    let outTotal = 0;
    let stdoutTruncated = false;
    // Bounded whatever the child writes; linear in what it writes (./bounded-output).
    const errHead = Math.min(8 * 1024, Math.floor(maxErr / 8));
    const err = new BoundedCapture(errHead, maxErr - errHead);
    const onLine = options.onStderrLine;
    const lines = onLine ? new LineSplitter((line, cut) => onLine(line, cut), options.maxStderrLineBytes ?? 4096) : undefined;
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
      lines?.end();
      resolve({
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: err.text(),
        stdoutBytes: outTotal,
        stderrBytes: err.total,
        exitCode,
        exitSignal,
        timedOut,
        aborted,
        stdoutTruncated,
        stderrTruncated: err.dropped > 0,
      });
    };

    child.once('error', (error) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      options.signal?.removeEventListener('abort', onAbort);
      reject(error);
    });

    // A spawn that failed for want of file descriptors (EMFILE) returns a child without pipes; its 'error' event
    // (above) then rejects with the errno, which must not be hidden behind a TypeError from a missing pipe.
    child.stdout?.on('data', (chunk: Buffer) => {
      outTotal += chunk.length;
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

    child.stderr?.on('data', (chunk: Buffer) => {
      err.push(chunk);
      lines?.push(chunk);
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
