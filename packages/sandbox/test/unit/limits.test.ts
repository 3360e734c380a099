// The limits' pieces: the prlimit argv, where a run's pids cgroup may go, and which limit a failed run reached.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { limitReached, pidsCgroupParent, rlimitPrefix } from '../../src/limits';

const exit = (stderr: string, exitCode: number | null = 1, exitSignal: string | null = null) => ({ stderr, exitCode, exitSignal });

it('builds the prlimit prefix from the limits given, and none without limits', () => {
  expect(rlimitPrefix({ memoryMb: 256, processes: 64 })).toEqual(['/usr/bin/prlimit', `--data=${256 * 1024 * 1024}`, '--nproc=64', '--']);
  expect(rlimitPrefix({ processes: 8 })).toEqual(['/usr/bin/prlimit', '--nproc=8', '--']);
  expect(rlimitPrefix({})).toEqual([]);
  expect(rlimitPrefix(undefined)).toEqual([]);
});

it('tells a memory limit from a process limit by the cgroup, the stderr and the signal', () => {
  const limits = { memoryMb: 512, processes: 64 };
  expect(limitReached(limits, exit('sh: 0: Cannot fork'))).toBe('processes');
  expect(limitReached(limits, exit('bash: fork: retry: Resource temporarily unavailable'))).toBe('processes');
  expect(limitReached(limits, exit('RangeError: Array buffer allocation failed'))).toBe('memory');
  expect(limitReached(limits, exit('# Fatal process OOM in Failed to reserve virtual memory for CodeRange', 133))).toBe('memory');
  expect(limitReached(limits, exit('', 139))).toBe('memory'); // SIGSEGV inside, reported by bwrap as 128 + 11
  expect(limitReached(limits, exit('', 1), { reachedMax: () => true })).toBe('processes');
  expect(limitReached(limits, exit('error: no such file', 2))).toBeUndefined();
  // Without the limit set, the same words are the agent's own business.
  expect(limitReached({}, exit('sh: 0: Cannot fork'))).toBeUndefined();
  expect(limitReached(undefined, exit('out of memory'))).toBeUndefined();
});

it('finds the pids cgroup of this process (v1) or a v2 cgroup that delegates pids, else none', () => {
  const root = mkdtempSync(join(tmpdir(), 'hw-cgroup-'));
  try {
    const self = join(root, 'self-cgroup');
    mkdirSync(join(root, 'pids', 'gw'), { recursive: true });
    writeFileSync(join(root, 'pids', 'gw', 'cgroup.procs'), '');
    writeFileSync(self, '8:pids:/gw\n0::/\n');
    expect(pidsCgroupParent(self, root)).toBe(join(root, 'pids', 'gw'));
    mkdirSync(join(root, 'svc'), { recursive: true });
    writeFileSync(join(root, 'svc', 'cgroup.subtree_control'), 'cpu pids\n');
    writeFileSync(self, '0::/svc\n');
    expect(pidsCgroupParent(self, root)).toBe(join(root, 'svc'));
    writeFileSync(join(root, 'svc', 'cgroup.subtree_control'), 'cpu\n');
    expect(pidsCgroupParent(self, root)).toBeUndefined();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
