// One agent run's sandbox: its work dir, its egress socket and a way to start any number of processes in it
// (the command runner starts one, the terminal tool one per command, a run's stdio MCP servers one each).
// With an unsandboxed decision (mode off, or auto without bubblewrap) the same calls start the processes
// directly, so a caller has one code path.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxCommand, type SpawnPlan } from './command';
import type { EgressLease, EgressProxy } from './egress-proxy';
import { openLifeline, type Lifeline } from './lifeline';
import { inCgroup, limitReached, openPidsCgroup, type LimitExit, type PidsCgroup, type SandboxLimits } from './limits';
import type { SandboxDecision } from './policy';

export interface SandboxRunOptions {
  decision: SandboxDecision;
  /** The gateway's egress proxy; needed when `network` is not empty and the run is sandboxed. */
  proxy?: EgressProxy;
  /** Names the run in the proxy's refusal log lines (job id, route). */
  label: string;
  /** agent.sandbox.network: "host" or "host:port"; empty or absent = no network. */
  network?: readonly string[];
  /** The runner's cwd; absent: a fresh directory is made and removed by close(). */
  workDir?: string;
  home?: string;
  /** agent.sandbox.read_only (plus what a preset adds). */
  readOnly?: readonly string[];
  /** agent.sandbox.writable (plus what a preset adds). */
  writable?: readonly string[];
  /** Config dir, store file, log dir: never visible inside. */
  hidden?: readonly string[];
  /** Hidden too, but for the allowed paths inside them (SandboxSpec.hiddenExceptAllowed). */
  hiddenExceptAllowed?: readonly string[];
  /** Where a fresh work dir is made. Default os.tmpdir(). */
  workParent?: string;
  /** Memory and process limits of the run's processes (sandboxed runs only; ./limits). */
  limits?: SandboxLimits;
}

export interface SandboxRun {
  readonly decision: SandboxDecision;
  readonly sandboxed: boolean;
  readonly workDir: string;
  /** The run's egress socket, when it has network rules and is sandboxed. */
  readonly egress?: EgressLease;
  /** What to start for `command args` with the runner's complete `env`: hand it to runProcess or spawn. */
  plan(command: string, args: readonly string[], env: NodeJS.ProcessEnv): SpawnPlan;
  /** Starts `command` in its own process group (detached), like runProcess does, and returns the child. */
  spawn(command: string, args: readonly string[], env: NodeJS.ProcessEnv, stdio?: StdioOptions): ChildProcess;
  /** The limits the run's processes get (undefined unsandboxed). */
  readonly limits?: SandboxLimits;
  /** How its process limit is held: a pids cgroup of its own, or RLIMIT_NPROC only. */
  readonly processLimit?: 'cgroup' | 'rlimit';
  /** Which limit a failed process of the run most likely reached, from how it ended and its stderr. */
  limitReached(exit: LimitExit): 'memory' | 'processes' | undefined;
  /**
   * Closes the egress socket, cuts the run's lifeline (whatever still runs in its sandboxes is killed) and
   * removes a work dir this run made. Call after the last process ended.
   */
  close(): Promise<void>;
}

export async function openSandboxRun(options: SandboxRunOptions): Promise<SandboxRun> {
  const { decision } = options;
  const madeWorkDir = options.workDir === undefined;
  const workDir = options.workDir ?? (await mkdtemp(join(options.workParent ?? tmpdir(), 'hookwise-job-')));
  let egress: EgressLease | undefined;
  let lifeline: Lifeline | undefined;
  const limits = decision.sandboxed ? options.limits : undefined;
  // A root gateway's RLIMIT_NPROC is ignored by the kernel: a pids cgroup of the run's own holds the limit (./limits).
  const cgroup: PidsCgroup | undefined = limits?.processes !== undefined ? openPidsCgroup(limits.processes) : undefined;
  const network = options.network ?? [];
  if (decision.sandboxed && network.length > 0) {
    if (!options.proxy)
      throw new Error(`sandboxed run '${options.label}' lists network hosts but no egress proxy was given: start one with EgressProxy.start()`);
    egress = await options.proxy.openJob(options.label, network);
  }
  const planned = (command: string, args: readonly string[], env: NodeJS.ProcessEnv, pathsOnly = false): SpawnPlan => {
    if (!decision.sandboxed) return { command, args: [...args], env, cwd: workDir };
    if (!decision.bwrapPath) throw new Error('a sandboxed decision carries no bwrapPath: build it with resolveSandboxPolicy()');
    const built = sandboxCommand({
      bwrapPath: decision.bwrapPath,
      command,
      args,
      env,
      workDir,
      home: options.home,
      readOnly: options.readOnly,
      writable: options.writable,
      hidden: options.hidden,
      hiddenExceptAllowed: options.hiddenExceptAllowed,
      egressSocket: egress?.socketPath,
      lifeline: lifeline?.path,
      limits,
      pathsOnly,
    });
    return cgroup ? { ...built, ...inCgroup(cgroup.procs, built.command, built.args) } : built;
  };
  const plan = (command: string, args: readonly string[], env: NodeJS.ProcessEnv): SpawnPlan => planned(command, args, env);
  // Validate the paths now, so a bad configuration fails the run before anything starts.
  try {
    // (The private files of /etc are read when a command is planned: a run that spawns nothing never walks it.)
    if (decision.sandboxed) planned('true', [], {}, true);
    // Every sandboxed process of the run dies with this process or with close(), however this process ends.
    if (decision.sandboxed) lifeline = await openLifeline(options.workParent);
  } catch (error) {
    await egress?.close();
    await cgroup?.close();
    throw error;
  }
  return {
    decision,
    sandboxed: decision.sandboxed,
    workDir,
    egress,
    limits,
    processLimit: limits?.processes === undefined ? undefined : cgroup ? 'cgroup' : 'rlimit',
    limitReached: (exit) => limitReached(limits, exit, cgroup),
    plan,
    spawn(command, args, env, stdio = ['ignore', 'pipe', 'pipe']) {
      const p = plan(command, args, env);
      return spawn(p.command, p.args, { env: p.env, cwd: p.cwd, stdio, detached: true, windowsHide: true });
    },
    async close() {
      await lifeline?.close();
      await egress?.close();
      await cgroup?.close();
      if (madeWorkDir) await rm(workDir, { recursive: true, force: true });
    },
  };
}
