// The sandbox an agent run's processes start in, as a runner sees it. The gateway opens one per run
// (with @hookwise/sandbox: bubblewrap and an egress proxy) and hands it over in AgentTask.sandbox, so runners
// never depend on the mechanism: they only ask it how to start a process. Unsandboxed runs (mode off, or auto
// on a machine without bubblewrap) get the same object, whose plan() starts the process directly.
import type { ChildProcess, StdioOptions } from 'node:child_process';

/** `auto` (default): sandbox where the machine can, else warn. `required`: refuse to run without. `off`: never. */
export type AgentSandboxMode = 'auto' | 'required' | 'off';

/** What to start: hand it to spawn(command, args, { env, cwd }) or the kit's runProcess unchanged. */
export interface AgentSpawnPlan {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** How one agent run was isolated: kept with the job (AgentUsage.sandbox) for `deliveries show` and the dashboard. */
export interface AgentRunSandbox {
  mode: AgentSandboxMode;
  sandboxed: boolean;
  /** Why, in one line (what was found, or what is missing and how to get it). */
  reason: string;
}

export interface AgentSandbox extends AgentRunSandbox {
  /** The run's work directory: writable inside, the cwd of every process, HOME unless a runner says otherwise. */
  readonly workDir: string;
  /** What to start for `command args` with the complete environment the runner means the process to have. */
  plan(command: string, args: readonly string[], env: NodeJS.ProcessEnv): AgentSpawnPlan;
  /** Starts `command` in its own process group (detached), e.g. a stdio MCP server; stdio default ignore/pipe/pipe. */
  spawn(command: string, args: readonly string[], env: NodeJS.ProcessEnv, stdio?: StdioOptions): ChildProcess;
  /**
   * Registers what must end with the run (a stdio MCP server started in it): called when the gateway closes the
   * sandbox after the run, before its work dir goes.
   */
  onClose(cleanup: () => Promise<void> | void): void;
  /** The run's limits (agent.max_output_kb, agent.sandbox.memory_mb and processes), as the gateway resolved them. */
  readonly limits?: AgentRunLimits;
  /**
   * When a process of the run failed because it reached the memory or process limit: a sentence saying so and
   * naming the setting to raise; otherwise undefined.
   */
  limitReached?(exit: { exitCode: number | null; exitSignal: string | null; stderr: string }): string | undefined;
}

/** Limits of one agent run. */
export interface AgentRunLimits {
  /** agent.max_output_kb in bytes: the most of stdout kept as the answer, and of stderr kept for the log. */
  maxOutputBytes?: number;
  /** agent.sandbox.memory_mb: address space per process, MiB (sandboxed runs only). */
  memoryMb?: number;
  /** agent.sandbox.processes: processes of the run at once (sandboxed runs only). */
  processes?: number;
}

/**
 * What a runner's processes need beyond the work dir (a preset knows its CLI's config and login directories and
 * API hosts): the gateway adds it to the route's `agent.sandbox` for every run of that runner.
 */
export interface AgentSandboxNeeds {
  /** Hosts ("host" or "host:port") the processes must reach through the egress proxy. */
  network?: string[];
  /** Host paths to read (missing ones are skipped). */
  readOnly?: string[];
  /** Host paths to write (missing ones are skipped). */
  writable?: string[];
  /** The work dir to use instead of a fresh one per run (the runner's configured `cwd`). */
  workDir?: string;
  /** HOME inside, when the CLI must find its login under the real home (must be a read_only/writable path). */
  home?: string;
}
