// Memory and process limits of one sandboxed run, without root-only machinery:
//
// - memory: RLIMIT_DATA (the private writable memory of each process: heap, anonymous and private writable
//   mappings), set with util-linux's `prlimit` just before the command is exec'd inside the sandbox. An allocation
//   past it fails with ENOMEM; the sandbox has no capabilities, so the agent cannot raise it again. Not RLIMIT_AS:
//   address space counts reservations that hold no memory (V8 reserves gigabytes for its heap cage and for each
//   WebAssembly memory's guard regions), so a Node-based CLI under a 2 GiB RLIMIT_AS cannot even call fetch().
// - processes: RLIMIT_NPROC set the same way. Since Linux 5.14 it counts per user namespace, so for a gateway
//   that is not root it bounds the sandbox's own processes. The kernel ignores it for processes of the host's
//   root (uid 0 keeps uid 0 in the sandbox's user namespace), so a root gateway also puts each sandboxed run in a
//   `pids` cgroup of its own (pids.max) under its own cgroup, where it may make one (cgroup v1 pids hierarchy, or
//   a cgroup v2 tree that delegates the pids controller). Where neither bites (root without a writable pids
//   cgroup) the process limit is not enforced and `processLimitEnforcement()` says so.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SandboxLimits {
  /** Private writable memory per process, in MiB (RLIMIT_DATA). */
  memoryMb?: number;
  /** Processes (and threads) of the run at once (pids cgroup and RLIMIT_NPROC). */
  processes?: number;
}

export const PRLIMIT_PATH = '/usr/bin/prlimit';

/** The argv prefix that applies the limits to the command after it (inside the sandbox). */
export function rlimitPrefix(limits: SandboxLimits | undefined, prlimit = PRLIMIT_PATH): string[] {
  if (!limits || (limits.memoryMb === undefined && limits.processes === undefined)) return [];
  const flags: string[] = [];
  if (limits.memoryMb !== undefined) flags.push(`--data=${Math.floor(limits.memoryMb * 1024 * 1024)}`);
  if (limits.processes !== undefined) flags.push(`--nproc=${Math.floor(limits.processes)}`);
  return [prlimit, ...flags, '--'];
}

/** A per-run pids cgroup: start the run's bwrap in it (`procs`), remove it with close(). */
export interface PidsCgroup {
  readonly dir: string;
  /** The cgroup.procs file a process writes its pid to, to join. */
  readonly procs: string;
  /** True when a fork in the cgroup failed for want of room (pids.events `max` > 0). */
  reachedMax(): boolean;
  close(): Promise<void>;
}

/** The directory under which this process may make a pids cgroup, or undefined. */
export function pidsCgroupParent(procSelfCgroup = '/proc/self/cgroup', root = '/sys/fs/cgroup'): string | undefined {
  let lines: string[];
  try {
    lines = readFileSync(procSelfCgroup, 'utf8').split('\n');
  } catch {
    return undefined;
  }
  for (const line of lines) {
    const [, controllers, path] = line.split(':');
    if (path === undefined) continue;
    if (controllers.split(',').includes('pids')) {
      const dir = join(root, 'pids', path);
      if (existsSync(join(dir, 'cgroup.procs'))) return dir;
    }
  }
  // cgroup v2: the pids controller must be delegated to our cgroup's children already.
  const unified = lines.find((line) => line.startsWith('0::'));
  if (!unified) return undefined;
  for (const mount of [root, join(root, 'unified')]) {
    const dir = join(mount, unified.slice(3));
    try {
      if (readFileSync(join(dir, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('pids')) return dir;
    } catch {
      /* not this mount */
    }
  }
  return undefined;
}

/** Makes a pids cgroup for one run with pids.max = `max`, or undefined when this process cannot. */
export function openPidsCgroup(max: number, parent: string | undefined = pidsCgroupParent()): PidsCgroup | undefined {
  if (!parent) return undefined;
  const dir = join(parent, `hookwise-run-${randomBytes(6).toString('hex')}`);
  try {
    mkdirSync(dir);
  } catch {
    return undefined;
  }
  try {
    writeFileSync(join(dir, 'pids.max'), String(Math.floor(max)));
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      /* left empty */
    }
    return undefined;
  }
  return {
    dir,
    procs: join(dir, 'cgroup.procs'),
    reachedMax() {
      try {
        const match = /^max (\d+)/m.exec(readFileSync(join(dir, 'pids.events'), 'utf8'));
        return match !== null && Number(match[1]) > 0;
      } catch {
        return false;
      }
    },
    async close() {
      // The processes die when the run's lifeline is cut; the cgroup can go once they are gone.
      for (let attempt = 0; attempt < 50; attempt++) {
        try {
          rmdirSync(dir);
          return;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    },
  };
}

/** How a process limit is enforced on this machine for this process: `cgroup`, `rlimit` or `none`. */
export function processLimitEnforcement(parent: string | undefined = pidsCgroupParent()): 'cgroup' | 'rlimit' | 'none' {
  const probe = openPidsCgroup(1_000_000, parent);
  if (probe) {
    void probe.close();
    return 'cgroup';
  }
  return process.getuid?.() === 0 ? 'none' : 'rlimit';
}

/** The argv that joins the cgroup and then execs `command` (on the host, before bwrap starts). */
export function inCgroup(procs: string, command: string, args: readonly string[]): { command: string; args: string[] } {
  return { command: '/bin/sh', args: ['-c', 'echo $$ > "$1" && shift && exec "$@"', 'hookwise-cgroup', procs, command, ...args] };
}

const MEMORY_WORDS =
  /cannot allocate memory|out of memory|memory exhausted|\bENOMEM\b|allocation failed|failed to reserve virtual memory|bad_alloc|MemoryError|xmalloc/i;
const PROCESS_WORDS = /cannot fork|fork: retry|fork failed|\bEAGAIN\b|resource temporarily unavailable|cannot create thread|pthread_create/i;
// Signals a process dies of when an allocation fails and it does not check (SIGSEGV, SIGBUS) or aborts (SIGABRT,
// SIGTRAP: V8). bwrap reports a signal inside as exit code 128 + the signal's number.
const ALLOCATION_DEATHS = new Set([128 + 5, 128 + 6, 128 + 7, 128 + 11]);
const ALLOCATION_SIGNALS = new Set(['SIGTRAP', 'SIGABRT', 'SIGBUS', 'SIGSEGV']);

export interface LimitExit {
  exitCode: number | null;
  exitSignal: string | null;
  /** The stderr kept of the run (head and tail). */
  stderr: string;
}

/** Which limit a failed run most likely reached: the cgroup's account first, then what the run wrote and how it died. */
export function limitReached(limits: SandboxLimits | undefined, exit: LimitExit, cgroup?: Pick<PidsCgroup, 'reachedMax'>): 'processes' | 'memory' | undefined {
  if (!limits) return undefined;
  if (limits.processes !== undefined && cgroup?.reachedMax()) return 'processes';
  if (limits.memoryMb !== undefined && MEMORY_WORDS.test(exit.stderr)) return 'memory';
  if (limits.processes !== undefined && PROCESS_WORDS.test(exit.stderr)) return 'processes';
  if (limits.memoryMb !== undefined && (ALLOCATION_DEATHS.has(exit.exitCode ?? -1) || ALLOCATION_SIGNALS.has(exit.exitSignal ?? ''))) return 'memory';
  return undefined;
}
