// The boundary between the gateway and an agent run's processes: which sandbox each route's runs get
// (`agent.sandbox`, the route's keys over the global ones), the one egress proxy of the gateway, and one
// SandboxRun per agent run, handed to the runner as AgentTask.sandbox and closed after the run.
import { constants, existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, open, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Logger } from 'winston';
import type { AgentRunLimits, AgentSandbox, AgentSandboxNeeds, Job, Skill } from '@hookwise/core';
import { HookwiseConfigError, HookwiseError, errorMessage } from '@hookwise/core';
import {
  EgressProxy,
  fdExhaustionAdvice,
  fdExhaustionOf,
  isWithin,
  openSandboxRun,
  parseNetworkList,
  probeSandbox,
  processLimitEnforcement,
  resolveSandboxPolicy,
  type RefusedListener,
  type SandboxDecision,
  type SandboxProbe,
  type SandboxRun,
} from '@hookwise/sandbox';
import type { HookwiseConfig } from '../config/schema';
import { isLoopbackHost } from '../config/loopback-host';
import { DEFAULT_MAX_OUTPUT_KB, DEFAULT_MEMORY_MB, DEFAULT_PROCESSES, type SandboxConfig } from '../config/sandbox-schema';
import type { Route } from '../routes/routes';

type SandboxRoute = Pick<Route, 'name' | 'agent'>;

/** A route's `agent.sandbox`: its own keys over the global block's, and the config key to name in messages. */
export function sandboxSettings(config: HookwiseConfig, route: SandboxRoute | undefined): { settings: SandboxConfig; where: string } {
  const own = route?.agent?.sandbox as SandboxConfig | undefined;
  const settings = { ...(config.agent.sandbox ?? {}), ...(own ?? {}) };
  const where = own && route ? `route '${route.name}' agent.sandbox` : 'agent.sandbox';
  return { settings, where };
}

/**
 * A route's run limits: agent.max_output_kb (the route's agent block, else the global one) and, for sandboxed runs,
 * agent.sandbox.memory_mb and processes (key by key like the other sandbox keys), with their defaults.
 */
export function runLimits(config: HookwiseConfig, route: SandboxRoute | undefined, sandboxed: boolean): AgentRunLimits {
  const { settings } = sandboxSettings(config, route);
  const kb = (route?.agent?.max_output_kb as number | undefined) ?? config.agent.max_output_kb ?? DEFAULT_MAX_OUTPUT_KB;
  const limits: AgentRunLimits = { maxOutputBytes: kb * 1024 };
  if (sandboxed) {
    limits.memoryMb = settings.memory_mb ?? DEFAULT_MEMORY_MB;
    limits.processes = settings.processes ?? DEFAULT_PROCESSES;
  }
  return limits;
}

/**
 * What to tell the operator when a run reached a limit: what happened and which key to raise. Not retried: the same
 * agent on the same event reaches it again, and a fork bomb or a runaway allocation should not run five times.
 */
export function limitMessage(which: 'memory' | 'processes', limits: AgentRunLimits, where: string, who = 'the agent'): string {
  return which === 'memory'
    ? `it ran out of memory: an allocation failed (ENOMEM) under ${where}.memory_mb (${limits.memoryMb} MiB of memory per process); raise ${where}.memory_mb if ${who} needs more. Not retried`
    : `it reached its process limit: starting another process failed (EAGAIN) under ${where}.processes (${limits.processes} at once); raise ${where}.processes if ${who} needs more. Not retried`;
}

/** Problems with a block's network hosts and paths (the schema checked the shapes). */
export function sandboxProblems(block: unknown, where: string): string[] {
  if (!block || typeof block !== 'object') return [];
  const settings = block as SandboxConfig;
  const problems: string[] = [];
  try {
    parseNetworkList(settings.network ?? [], `${where}.network`);
  } catch (err) {
    problems.push(errorMessage(err));
  }
  for (const key of ['read_only', 'writable'] as const)
    for (const path of settings[key] ?? [])
      if (!isAbsolute(path)) problems.push(`${where}.${key}: '${path}' is not an absolute path; write it in full (e.g. /opt/tools)`);
  return problems;
}

/** A network entry's host that connects to this machine: loopback, the unspecified address, a *.localhost name. */
function reachesLoopback(host: string): boolean {
  return isLoopbackHost(host) || host === '0.0.0.0' || host === '::' || /^::ffff:(127\.|0\.0\.0\.0$)/.test(host) || host.endsWith('.localhost');
}

/** The store's files when they may lie outside the config dir (sqlite `store.path` and its journal files). */
export function storeFiles(config: HookwiseConfig, configDir: string): string[] {
  const path = (config.store as { path?: unknown }).path;
  if (typeof path !== 'string' || path === ':memory:') return [];
  const file = resolve(configDir, path);
  return [file, `${file}-wal`, `${file}-shm`, `${file}-journal`];
}

export interface AgentSandboxesOptions {
  config: HookwiseConfig;
  configDir: string;
  logger: Logger;
  /** Host paths never shown to an agent besides the config dir (the store file, log dirs). */
  hidden?: readonly string[];
  /** Host dirs never shown but for a run's own allowed paths inside them (a profile's view of the data dir). */
  hiddenExceptAllowed?: readonly string[];
  /** The probe (tests make it fail); default probeSandbox(). */
  probe?: () => Promise<SandboxProbe>;
  /** Where fresh work dirs are made; default the system's temp dir. */
  workParent?: string;
}

/** An open run: the runner's view of it, the fact stored with the job, and its closing. */
export interface OpenAgentSandbox {
  sandbox: AgentSandbox;
  /**
   * The task's skills. Sandboxed, their dirs are copied into a fresh `.hookwise-skills-*` dir of the work dir (the
   * config dir that holds them is hidden), removed after the run; a link a run left in a fixed agent.cwd is never
   * followed (stageSkillFiles).
   */
  skills: Skill[];
  close(): Promise<void>;
}

export class AgentSandboxes {
  private probed?: Promise<SandboxProbe>;
  private proxy?: Promise<EgressProxy>;
  private readonly listeners: RefusedListener[] = [];
  private readonly hidden: string[];
  private readonly workParent: string;
  /** What every sandbox of this gateway hides, and where work dirs go (a transform's run opens its own: transform-command.ts). */
  get hiddenPaths(): string[] {
    return this.hidden;
  }
  /** Dirs hidden but for a run's own allowed paths inside them (SandboxSpec.hiddenExceptAllowed). */
  get hiddenExceptAllowed(): string[] {
    return (this.options.hiddenExceptAllowed ?? []).map((p) => resolve(p));
  }
  get workDirParent(): string {
    return this.workParent;
  }

  constructor(private readonly options: AgentSandboxesOptions) {
    this.hidden = [options.configDir, ...(options.hidden ?? [])].map((p) => resolve(p));
    // A work dir inside the config dir could never be shown to the agent (a config dir that holds the temp dir):
    // the first candidate outside every hidden path is used.
    const candidates = options.workParent ? [options.workParent] : [tmpdir(), '/var/tmp', '/dev/shm'];
    this.workParent = candidates.find((dir) => existsSync(dir) && !this.hidden.some((h) => isWithin(resolve(dir), h))) ?? candidates[0];
  }

  /** True when `path` lies in a hidden path or holds one: such a path can never be shown to an agent. */
  overlapsHidden(path: string): boolean {
    const p = resolve(path);
    return this.hidden.some((h) => isWithin(p, h) || isWithin(h, p));
  }

  private probe(): Promise<SandboxProbe> {
    this.probed ??= (this.options.probe ?? (() => probeSandbox()))();
    return this.probed;
  }

  /** A route's run limits (runLimits) and the config path they are set at, for a run the gateway opens itself. */
  limitsFor(route: SandboxRoute | undefined, sandboxed: boolean): { limits: AgentRunLimits; where: string } {
    return { limits: runLimits(this.options.config, route, sandboxed), where: sandboxSettings(this.options.config, route).where };
  }

  /** The decision for a route's runs; throws a HookwiseConfigError when `required` cannot be met. */
  async decisionFor(route: SandboxRoute | undefined): Promise<SandboxDecision> {
    const { settings, where } = sandboxSettings(this.options.config, route);
    return resolveSandboxPolicy(settings.mode, await this.probe(), where);
  }

  /**
   * At startup: decides every static route's sandbox (refusing `required` without one, naming the fix), logs
   * each route's mode and why, warns once when runs will go unsandboxed, and starts the egress proxy when a
   * sandboxed route lists network hosts (its own or its runner's).
   */
  async start(routes: readonly Route[], needsOf: (route: Route) => Promise<AgentSandboxNeeds | undefined>): Promise<void> {
    const problems: string[] = [];
    const unsandboxed: string[] = [];
    let warning: string | undefined;
    let wantsProxy = false;
    let sandboxed = false;
    // Without static routes the global block is what the subscriptions' runs will get.
    for (const route of routes.length ? routes : [undefined]) {
      let decision: SandboxDecision;
      try {
        decision = await this.decisionFor(route);
      } catch (err) {
        problems.push(errorMessage(err));
        continue;
      }
      sandboxed ||= decision.sandboxed;
      const who = route ? `route '${route.name}'` : 'agent runs';
      this.options.logger.info(`${who}: agent sandbox ${decision.mode}: ${decision.reason}`, route ? { route: route.name } : {});
      if (decision.warning) {
        warning ??= decision.warning;
        unsandboxed.push(route ? route.name : '(all)');
      }
      if (route && decision.sandboxed && !wantsProxy) {
        const network = [...(sandboxSettings(this.options.config, route).settings.network ?? []), ...((await needsOf(route))?.network ?? [])];
        wantsProxy = network.length > 0;
      }
    }
    if (problems.length) throw new HookwiseConfigError([...new Set(problems)], 'the gateway cannot start');
    if (warning) this.options.logger.warn(`${warning} (routes: ${unsandboxed.join(', ')})`);
    // Root's processes ignore RLIMIT_NPROC: without a pids cgroup of its own the gateway cannot hold agent.sandbox.processes.
    if (sandboxed && processLimitEnforcement() === 'none')
      this.options.logger.warn(
        'agent.sandbox.processes is not enforced: the gateway runs as root (whose processes RLIMIT_NPROC does not bind) and cannot make a pids cgroup under its own; run it as another user, or give it a cgroup v2 tree that delegates the pids controller',
      );
    if (wantsProxy) await this.egressProxy();
  }

  /**
   * Which of these routes' agents can reach this machine's loopback (where an admin API without a token answers
   * anyone): a run without a sandbox (mode off, or auto without bubblewrap), or a sandbox network that lists
   * localhost, 127.x or ::1 (the route's, the global block's or its runner's). One reason per route; `undefined`
   * stands for the global block (what subscriptions get).
   */
  async loopbackReach(routes: readonly (Route | undefined)[], needsOf: (route: Route) => Promise<AgentSandboxNeeds | undefined>): Promise<string[]> {
    const reasons: string[] = [];
    for (const route of routes) {
      const who = route ? `route '${route.name}'` : 'agent runs (agent.sandbox, what subscriptions get)';
      let decision: SandboxDecision;
      try {
        decision = await this.decisionFor(route);
      } catch {
        continue; // `required` without a sandbox: start() has refused it already.
      }
      if (!decision.sandboxed) {
        reasons.push(`${who} runs its agent unsandboxed (${decision.reason})`);
        continue;
      }
      const needs = route ? await needsOf(route).catch(() => undefined) : undefined;
      const listed = [...(sandboxSettings(this.options.config, route).settings.network ?? []), ...(needs?.network ?? [])];
      const loopback = listed.filter((entry) => {
        try {
          return parseNetworkList([entry]).some((rule) => reachesLoopback(rule.host));
        } catch {
          return false;
        }
      });
      if (loopback.length) reasons.push(`${who} lets its agent reach loopback (sandbox network: ${loopback.join(', ')})`);
    }
    return reasons;
  }

  /**
   * The gateway's own listeners (webhook, admin and metrics port: host and port as bound), known once the
   * server listens: no agent may reach them through the egress proxy, even with `localhost` in its network.
   */
  refuseListeners(listeners: readonly RefusedListener[]): void {
    this.listeners.push(...listeners);
    void this.proxy?.then((proxy) => proxy.refuse(listeners)).catch(() => undefined);
  }

  /** The gateway's egress proxy, started on first need (a route added later may list hosts too). */
  private egressProxy(): Promise<EgressProxy> {
    this.proxy ??= EgressProxy.start({ logger: this.options.logger, refuse: this.listeners });
    return this.proxy;
  }

  /** Opens the sandbox of one agent run: its work dir, egress socket and what the runner needs. */
  async open(route: Route, job: Job, needs: AgentSandboxNeeds | undefined, skills: Skill[]): Promise<OpenAgentSandbox> {
    const decision = await this.decisionFor(route);
    const { settings, where } = sandboxSettings(this.options.config, route);
    const limits = runLimits(this.options.config, route, decision.sandboxed);
    const network = [...new Set([...(settings.network ?? []), ...(needs?.network ?? [])])];
    const run: SandboxRun = await openSandboxRun({
      decision,
      proxy: decision.sandboxed && network.length > 0 ? await this.egressProxy() : undefined,
      label: `job ${job.id} (route '${route.name}', delivery ${job.deliveryId})`,
      network,
      workDir: needs?.workDir,
      home: decision.sandboxed ? needs?.home : undefined,
      // The operator's writable paths win over what a runner makes readable inside them (a command's file
      // argument in a dir the route lists as writable stays writable); a runner's own read-only path inside its
      // own writable one (a login file in a CLI's private home) stays read-only.
      readOnly: [...(settings.read_only ?? []), ...(needs?.readOnly ?? []).filter((path) => !(settings.writable ?? []).some((dir) => isWithin(path, dir)))],
      writable: [...(settings.writable ?? []), ...(needs?.writable ?? [])],
      hidden: this.hidden,
      hiddenExceptAllowed: this.hiddenExceptAllowed,
      workParent: this.workParent,
      limits: { memoryMb: limits.memoryMb, processes: limits.processes },
    });
    let stagedDir: string | undefined;
    try {
      let staged = skills;
      if (decision.sandboxed && skills.some((skill) => skill.dir)) ({ dir: stagedDir, skills: staged } = await stageSkillFiles(skills, run.workDir));
      const cleanups: Array<() => Promise<void> | void> = [];
      const close = async () => {
        // What the runner started in the run (MCP servers) ends first; a failing cleanup does not keep the rest.
        for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
        if (stagedDir) await rm(stagedDir, { recursive: true, force: true });
        await run.close();
      };
      return { sandbox: agentSandbox(run, (cleanup) => cleanups.push(cleanup), limits, where), skills: staged, close };
    } catch (err) {
      if (stagedDir) await rm(stagedDir, { recursive: true, force: true });
      await run.close();
      throw err;
    }
  }

  /** Closes the egress proxy (after the last run ended). */
  async close(): Promise<void> {
    const proxy = this.proxy;
    this.proxy = undefined;
    if (proxy) await (await proxy.catch(() => undefined))?.close();
  }
}

/**
 * A run that failed for want of file descriptors (EMFILE/ENFILE from a spawn, a connect, a work dir), however the
 * runner wrapped it: a retryable failure saying so (runners call a failed spawn "not installed", not retryable).
 */
export function fdExhaustionFailure(err: unknown, what: string): HookwiseError | undefined {
  const code = fdExhaustionOf(err);
  if (!code) return undefined;
  return new HookwiseError('HW_E_AGENT', `${what} failed: ${fdExhaustionAdvice(code)} (${errorMessage(err)})`, { retryable: true, cause: err });
}

/**
 * Copies skill dirs into a fresh directory made in `parent` (an agent's work dir, where a run may have left links)
 * and returns it with the skills pointing there. Nothing on the way is ever followed: the directory is new
 * (mkdtemp), each dir is made here and checked with lstat, each file is created with O_EXCL | O_NOFOLLOW. On the
 * source side (the operator's config dir) only regular files and directories are copied, not links.
 */
export async function stageSkillFiles(skills: readonly Skill[], parent: string): Promise<{ dir: string; skills: Skill[] }> {
  const dir = await mkdtemp(join(parent, '.hookwise-skills-'));
  const staged: Skill[] = [];
  for (const skill of skills) {
    if (!skill.dir) {
      staged.push(skill);
      continue;
    }
    const to = join(dir, skill.name);
    await copyTree(skill.dir, to);
    staged.push({ ...skill, dir: to });
  }
  return { dir, skills: staged };
}

const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

async function copyTree(from: string, to: string): Promise<void> {
  await mkdir(to, { mode: 0o700 });
  if (!(await lstat(to)).isDirectory()) throw new HookwiseError('HW_E_SKILL', `could not stage skill files: ${to} was replaced by a link while staging`);
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) await copyTree(source, target);
    else if (entry.isFile()) {
      const mode = (await lstat(source)).mode & 0o777;
      const file = await open(target, CREATE_NEW, mode);
      try {
        await file.writeFile(await readFile(source));
        await file.chmod(mode);
      } finally {
        await file.close();
      }
    }
  }
}

function agentSandbox(run: SandboxRun, onClose: AgentSandbox['onClose'], limits: AgentRunLimits, where: string): AgentSandbox {
  return {
    onClose,
    limits,
    limitReached: (exit) => {
      const which = run.limitReached(exit);
      return which ? limitMessage(which, limits, where) : undefined;
    },
    mode: run.decision.mode,
    sandboxed: run.sandboxed,
    reason: run.decision.reason,
    workDir: run.workDir,
    plan: (command, args, env) => run.plan(command, args, env),
    spawn: (command, args, env, stdio) => run.spawn(command, args, env, stdio),
  };
}
