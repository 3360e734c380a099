// Builds the bubblewrap command line for one process. Pure apart from reading the file system to resolve
// paths: the result can be handed to spawn() or the kit's runProcess unchanged (command, args, env, cwd).
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { HookwiseConfigError } from '@hookwise/core';
import { FORWARDER_SCRIPT, SOCAT_PATH, socatForwarder } from './forwarder';
import { LIFELINE_INSIDE, lifelineWatcher } from './lifeline';
import { PRLIMIT_PATH, rlimitPrefix, type SandboxLimits } from './limits';
import { unreadableByOthers } from './system-masks';

export interface SandboxSpec {
  /** The bwrap binary (SandboxDecision.bwrapPath). */
  bwrapPath: string;
  command: string;
  args?: readonly string[];
  /** The complete environment the runner passes (nothing else is added but HOME, TMPDIR, PWD and the proxy variables). */
  env: NodeJS.ProcessEnv;
  /** The per-job work directory (absolute, existing): writable, the cwd, and HOME unless `home` is given. */
  workDir: string;
  /** HOME inside; it must be the work dir, inside it, or a `writable`/`read_only` path. Default: workDir. */
  home?: string;
  /** Extra host paths readable inside (missing ones are skipped). */
  readOnly?: readonly string[];
  /** Extra host paths writable inside (missing ones are skipped). */
  writable?: readonly string[];
  /** Host paths never visible inside (config dir, store file, log dir), even under an allowed path. */
  hidden?: readonly string[];
  /**
   * Host directories hidden like `hidden`, except the allowed paths (work dir, read_only, writable) that lie in one,
   * which are shown again over the mask: a profile's gateway masks the data dir every profile keeps its agents'
   * homes in, and shows its own runs' homes below it.
   */
  hiddenExceptAllowed?: readonly string[];
  /** The run's egress socket (EgressLease.socketPath). Without it the sandbox has no network at all. */
  egressSocket?: string;
  /** The port the in-sandbox forwarder listens on. Default 3128. */
  proxyPort?: number;
  /** The node binary that runs the forwarder. Default process.execPath. */
  nodePath?: string;
  /** Which forwarder: socat where /usr/bin/socat exists (fast start), else node (default `auto`). */
  forwarder?: 'auto' | 'socat' | 'node';
  /**
   * The run's lifeline FIFO (./lifeline, Lifeline.path): when the gateway's end closes (the gateway died, or
   * the run was closed), every process of the sandbox is killed. Without it only --die-with-parent applies.
   */
  lifeline?: string;
  /**
   * Memory (RLIMIT_DATA) and process (RLIMIT_NPROC) limits, applied with util-linux's prlimit just before the
   * command is exec'd inside (./limits). The forwarder and the lifeline's watcher are not limited by them.
   */
  limits?: SandboxLimits;
  /**
   * Checks the paths and builds the arguments without reading which of /etc is private (a walk of every entry):
   * for a check of a run's configuration before anything is spawned, never for a command that is run.
   */
  pathsOnly?: boolean;
}

/** What to start: pass to spawn(command, args, { env, cwd }) or runProcess({ command, args, env, cwd }). */
export interface SpawnPlan {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** What the inside sees of the system, read-only. Not /root, /home, /srv, /var, /tmp, /run or /mnt of the host. */
export const SYSTEM_PATHS: readonly string[] = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];
/**
 * Secret files under SYSTEM_PATHS (readable when the gateway runs as root): always masked, whatever their mode.
 * Beside them, everything under /etc that is not world-readable is masked (./system-masks).
 */
const SYSTEM_SECRETS: readonly string[] = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/ssl/private',
  '/etc/sudoers',
  '/etc/sudoers.d',
];
/** Where the egress socket appears inside. */
export const EGRESS_SOCKET_INSIDE = '/run/hookwise/egress.sock';
export const DEFAULT_PROXY_PORT = 3128;
const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy', 'NO_PROXY', 'no_proxy'];

/**
 * The bwrap argv for one process: new user/PID/network/IPC/UTS/cgroup namespaces, own session, killed with its
 * parent, no capabilities, the system read-only, private /tmp, own /proc, the work dir writable and the cwd. Throws a
 * HookwiseConfigError when a path is relative or an allowed path lies inside a hidden one.
 */
export function sandboxCommand(spec: SandboxSpec): SpawnPlan {
  const problems: string[] = [];
  const absolute = (path: string, what: string): string | undefined => {
    if (isAbsolute(path)) return real(path);
    problems.push(`${what} '${path}' is not an absolute path`);
    return undefined;
  };
  const workDir = absolute(spec.workDir, 'the work dir');
  const readOnly = (spec.readOnly ?? []).map((p) => absolute(p, 'agent.sandbox.read_only path')).filter(isString);
  const writable = (spec.writable ?? []).map((p) => absolute(p, 'agent.sandbox.writable path')).filter(isString);
  const hidden = [...new Set((spec.hidden ?? []).flatMap((p) => (isAbsolute(p) ? [resolve(p), real(p)] : [])))];
  const screened = [...new Set((spec.hiddenExceptAllowed ?? []).flatMap((p) => (isAbsolute(p) ? [resolve(p), real(p)] : [])))];
  for (const [what, paths] of [
    ['the work dir', workDir ? [workDir] : []],
    ['agent.sandbox.read_only path', readOnly],
    ['agent.sandbox.writable path', writable],
  ] as const)
    for (const path of paths) {
      const inside = hidden.find((h) => isWithin(path, h));
      if (inside)
        problems.push(`${what} '${path}' is inside '${inside}', which is never shown to an agent (config dir, store or logs): choose a path outside it`);
    }
  const limited = rlimitPrefix(spec.limits);
  if (limited.length > 0 && !existsSync(PRLIMIT_PATH))
    problems.push(`${PRLIMIT_PATH} is missing, which applies agent.sandbox.memory_mb and processes: install util-linux`);
  if (problems.length > 0 || !workDir) throw new HookwiseConfigError(problems, 'Cannot build the agent sandbox');

  // bwrap keeps every capability for a caller that is root (the gateway in a container often is): the agent
  // could then unmount the masks below or remount binds writable. Dropped for everyone.
  const args = ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];
  const bound: string[] = [];
  for (const path of SYSTEM_PATHS) {
    const link = symlinkTarget(path);
    if (link !== undefined) args.push('--symlink', link, path);
    else if (existsSync(path)) {
      args.push('--ro-bind', path, path);
      bound.push(path);
    }
  }
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  // Outer paths first: bwrap mounts in order, so a read-only path inside a writable one (a login file in a CLI's
  // private home) is mounted over it and stays read-only, and a writable one inside a read-only one stays writable.
  const depth = (path: string) => path.split(sep).length;
  const binds = [...readOnly.map((path) => ['--ro-bind-try', path]), ...writable.map((path) => ['--bind-try', path])];
  for (const [flag, path] of binds.sort(([, a], [, b]) => depth(a) - depth(b))) {
    args.push(flag, path, path);
    bound.push(path);
  }
  const env: NodeJS.ProcessEnv = { ...spec.env };
  for (const name of PROXY_VARIABLES) delete env[name];
  let command = [...limited, spec.command, ...(spec.args ?? [])];
  // The watcher starts first, before the forwarder and the command, in the same shell (no extra process).
  let prologue = '';
  if (spec.lifeline) {
    args.push('--ro-bind', spec.lifeline, LIFELINE_INSIDE);
    prologue = lifelineWatcher(LIFELINE_INSIDE);
  }
  if (spec.egressSocket) {
    const nodePath = real(spec.nodePath ?? process.execPath);
    const nodeDir = dirname(nodePath);
    if (!bound.some((b) => isWithin(nodeDir, b))) {
      args.push('--ro-bind', nodeDir, nodeDir);
      bound.push(nodeDir);
    }
    args.push('--ro-bind', spec.egressSocket, EGRESS_SOCKET_INSIDE);
    const port = spec.proxyPort ?? DEFAULT_PROXY_PORT;
    const url = `http://127.0.0.1:${port}`;
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy']) env[name] = url;
    // Nothing bypasses the proxy: a listed loopback host is the gateway's loopback, not the sandbox's.
    env.NO_PROXY = '';
    env.no_proxy = '';
    const socat = spec.forwarder === 'socat' || ((spec.forwarder ?? 'auto') === 'auto' && existsSync(SOCAT_PATH));
    if (socat) {
      command = socatForwarder(EGRESS_SOCKET_INSIDE, port, command, prologue);
      prologue = '';
    } else command = [nodePath, '-e', FORWARDER_SCRIPT, EGRESS_SOCKET_INSIDE, String(port), ...command];
  }
  if (prologue) command = ['/bin/sh', '-c', `${prologue}exec "$@"`, 'hookwise-sandbox', ...command];
  args.push('--bind', workDir, workDir);
  bound.push(workDir);
  // Masks come last: bwrap applies its arguments in order, so they cover whatever was bound above them. A
  // path inside a directory masked already is left out (its mount point would not exist in the empty tmpfs).
  const shownAgain = screenedMasks(args, screened, bound, [
    ...readOnly.map((path) => ['--ro-bind', path] as const),
    ...writable.map((path) => ['--bind', path] as const),
    ['--bind', workDir] as const,
  ]);
  const system = bound.includes('/etc') && !spec.pathsOnly ? unreadableByOthers('/etc') : { files: [], dirs: [] };
  const masks = new Map<string, boolean>(); // path -> is a directory
  for (const path of [...hidden, ...SYSTEM_SECRETS, ...sshHostKeys(), ...system.files, ...system.dirs]) {
    if (masks.has(path) || !bound.some((b) => isWithin(path, b)) || !existsSync(path)) continue;
    // Under a screened mask only what was shown again exists (a mount point elsewhere could not be made there).
    if (shownAgain.masked.some((dir) => isWithin(path, dir)) && !shownAgain.paths.some((shown) => isWithin(path, shown))) continue;
    masks.set(path, statSync(path).isDirectory());
  }
  const dirs = [...masks].filter(([, isDir]) => isDir).map(([path]) => path);
  for (const [path, isDir] of masks) {
    if (dirs.some((dir) => dir !== path && isWithin(path, dir))) continue;
    if (isDir) args.push('--tmpfs', path, '--remount-ro', path);
    else args.push('--ro-bind', '/dev/null', path);
  }
  args.push('--chdir', workDir, '--', ...command);
  env.HOME = spec.home ?? workDir;
  env.TMPDIR = '/tmp';
  env.PWD = workDir;
  return { command: spec.bwrapPath, args, env, cwd: workDir };
}

/**
 * Masks each screened directory that an allowed path shows (an empty tmpfs), binds the allowed paths inside it
 * again over the mask, then makes the mask read-only (after the binds: their mount points are made in it).
 */
function screenedMasks(
  args: string[],
  screened: readonly string[],
  bound: readonly string[],
  allowed: ReadonlyArray<readonly [string, string]>,
): { masked: string[]; paths: string[] } {
  const masked: string[] = [];
  const paths: string[] = [];
  for (const dir of screened) {
    if (masked.some((m) => isWithin(dir, m)) || !bound.some((b) => isWithin(dir, b)) || !existsSync(dir)) continue;
    if (!statSync(dir).isDirectory()) continue;
    masked.push(dir);
    args.push('--tmpfs', dir);
    for (const [bind, path] of allowed) {
      if (!isWithin(path, dir) || path === dir || !existsSync(path)) continue;
      args.push(bind, path, path);
      paths.push(path);
    }
    args.push('--remount-ro', dir);
  }
  return { masked, paths };
}

/** The host's private SSH host keys (readable by root): masked like the other system secrets. */
function sshHostKeys(): string[] {
  try {
    return readdirSync('/etc/ssh')
      .filter((name) => /^ssh_host_.*_key$/.test(name))
      .map((name) => `/etc/ssh/${name}`);
  } catch {
    return [];
  }
}

/** True when `path` is `parent` or lies under it. */
export function isWithin(path: string, parent: string): boolean {
  const rel = relative(parent, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The path with symlinks resolved when it exists (so a hidden dir cannot be reached through a link). */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Merged-/usr systems link /bin to usr/bin: recreate the link inside instead of binding it. */
function symlinkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

function isString(value: string | undefined): value is string {
  return value !== undefined;
}
