// Can this machine sandbox? bubblewrap must be installed AND a trial run must succeed: a kernel or container
// may forbid the user/PID/network namespaces bwrap needs (sysctl kernel.unprivileged_userns_clone=0, a Docker
// seccomp profile, AppArmor's restrict_unprivileged_userns), and that only shows when bwrap actually runs.
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

export interface SandboxProbe {
  available: boolean;
  /** The bwrap binary found (absolute path), also when the trial run failed. */
  bwrapPath?: string;
  /** Why: what was found, or what is missing or failed. One line, safe to log. */
  reason: string;
  /** What to do to get the sandbox (undefined when available). */
  fix?: string;
}

export interface ProbeOptions {
  /** A bwrap binary to use instead of looking on PATH (config or tests). */
  bwrapPath?: string;
  /** The PATH to search; default process.env.PATH. */
  path?: string;
  /** Ignore the per-process cache and probe again. */
  refresh?: boolean;
}

export const INSTALL_FIX = 'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)';
const TRIAL_TIMEOUT_MS = 5000;

// The answer does not change while the process runs; probing costs a process start, so it is done once per
// bwrap path asked for.
const cache = new Map<string, Promise<SandboxProbe>>();

/** Finds bwrap and runs it once with the namespaces a sandboxed run uses. Never rejects. */
export function probeSandbox(options: ProbeOptions = {}): Promise<SandboxProbe> {
  const key = `${options.bwrapPath ?? ''}\u0000${options.path ?? process.env.PATH ?? ''}`;
  const cached = cache.get(key);
  if (cached && !options.refresh) return cached;
  const probe = runProbe(options);
  cache.set(key, probe);
  return probe;
}

async function runProbe(options: ProbeOptions): Promise<SandboxProbe> {
  if (process.platform !== 'linux')
    return {
      available: false,
      reason: `the sandbox uses Linux namespaces (bubblewrap); this is ${process.platform}`,
      fix: 'run the gateway on Linux (for example in a container) with bubblewrap installed',
    };
  const bwrapPath = options.bwrapPath ?? findOnPath('bwrap', options.path ?? process.env.PATH ?? '');
  if (!bwrapPath) return { available: false, reason: 'bubblewrap (bwrap) is not on PATH', fix: INSTALL_FIX };
  if (!isExecutable(bwrapPath)) return { available: false, bwrapPath, reason: `bwrap at ${bwrapPath} does not exist or is not executable`, fix: INSTALL_FIX };
  const failure = await trialRun(bwrapPath);
  if (failure)
    return {
      available: false,
      bwrapPath,
      reason: `bwrap at ${bwrapPath} cannot create a sandbox here: ${failure}`,
      fix: 'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or in a container: run it with a seccomp/AppArmor profile that permits them), or run the gateway where they are allowed',
    };
  return { available: true, bwrapPath, reason: `bubblewrap at ${bwrapPath} works` };
}

/** The same namespaces and mounts a real run uses, so that "available" means a run will start. */
function trialRun(bwrapPath: string): Promise<string | undefined> {
  const args = ['--unshare-all', '--die-with-parent', '--new-session', '--ro-bind', '/usr', '/usr', '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp'];
  for (const dir of ['/bin', '/lib', '/lib64']) args.push('--ro-bind-try', dir, dir);
  args.push('--', 'true');
  return new Promise((resolve) => {
    execFile(bwrapPath, args, { timeout: TRIAL_TIMEOUT_MS, env: {} }, (error, _stdout, stderr) => {
      if (!error) return resolve(undefined);
      const said = String(stderr).trim().split('\n').pop();
      resolve(said || (error.killed ? `the trial run did not finish in ${TRIAL_TIMEOUT_MS} ms` : `the trial run failed (${error.code ?? error.message})`));
    });
  });
}

function findOnPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
