// What a feature adds to the job path: a hook of WorkerPool (worker.ts), declared here beside it so that the
// worker runs features without knowing any. For each leased job a hook may give a part; the agent step and the
// delivery step then ask the parts at fixed points. A part is made once per job and lives while the job is
// processed, so what a feature reads for a job (a conversation's settled turn) is read once and carried.
import type { AgentResult, AgentSandbox, AgentSandboxNeeds, AgentTask, AgentUsage, Deliverer, Job, JobOutcome } from '@hookwise/core';
import type { Route } from '../routes/routes';

/** What a part adds around one agent run: processes' environment and sandbox, kept until the run ends. */
export interface RunAttachment {
  /** The sandbox's needs with the part's own (hosts, read-only paths). */
  needs?(needs: AgentSandboxNeeds | undefined): AgentSandboxNeeds;
  /** The run's sandbox as the runner gets it (variables added to each process it starts). */
  sandbox?(sandbox: AgentSandbox): AgentSandbox;
  /** The run's usage with what the part recorded (kept with the answer, and counted by the budgets). */
  usage?(usage: AgentUsage | undefined): AgentUsage | undefined;
  /**
   * Set when the part stopped the run (a spend cap its model proxy held): the job ends so, answered or failed,
   * neither delivered nor retried.
   */
  ending?(): { outcome: JobOutcome; note: string } | undefined;
  /** The run ended (answered, failed or timed out). */
  close(): void;
}

/** One feature's part in one job; every member is optional and asked in the order the hooks were given. */
export interface JobPart {
  /** The answer without a runner (the rendered prompt of a `deliver_only` route): no budget, no run. */
  answerWithoutRun?(): string;
  /** Why the job ends as skipped before its run (a reply whose conversation used its turns meanwhile). */
  skipReason?(): Promise<string | undefined>;
  /** The prompt instead of the route's rendered template (a conversation's history and the reply). */
  prompt?(): Promise<string | undefined>;
  /** What the runner's task gets besides the prompt (a conversation's session). */
  task?(): Promise<Partial<AgentTask> | undefined>;
  /** Opened when the runner is about to start, inside the run's sandbox. */
  attach?(signal: AbortSignal): Promise<RunAttachment | undefined>;
  /** After the run answered. Never throws: the answer is what matters. */
  afterRun?(result: AgentResult): Promise<void>;
  /** Before the answer is delivered: true when the job must not be delivered now (held for an approver, or ended). */
  holds?(answer: string, attempt: number): Promise<boolean>;
  /** A destination's deliver_extra for this job (a conversation's answer goes into its thread). */
  extraFor?(deliverer: Pick<Deliverer, 'conversation'>, extra: Record<string, string>, destination: string): Promise<Record<string, string>>;
  /** A destination took the answer. Never throws: the answer is delivered. */
  delivered?(answer: string, deliverer: Pick<Deliverer, 'conversation'>, receipt: unknown, destination: string): Promise<void>;
}

export interface JobHook {
  /** The feature's name, for errors. */
  readonly name: string;
  /** This feature's part in a job of the route; undefined when the route does not use it (no store call here). */
  partFor(route: Route, job: Job): JobPart | undefined;
}

/** The parts of one job, asked in order; a job whose route uses no feature has none and costs nothing. */
export class JobParts {
  static readonly NONE = new JobParts([]);

  private constructor(private readonly parts: readonly JobPart[]) {}

  static of(hooks: readonly JobHook[], route: Route, job: Job): JobParts {
    const parts: JobPart[] = [];
    for (const hook of hooks) {
      const part = hook.partFor(route, job);
      if (part) parts.push(part);
    }
    return parts.length ? new JobParts(parts) : JobParts.NONE;
  }

  answerWithoutRun(): string | undefined {
    for (const part of this.parts) if (part.answerWithoutRun) return part.answerWithoutRun();
    return undefined;
  }

  async skipReason(): Promise<string | undefined> {
    for (const part of this.parts) {
      const reason = await part.skipReason?.();
      if (reason) return reason;
    }
    return undefined;
  }

  async prompt(): Promise<string | undefined> {
    for (const part of this.parts) {
      const prompt = await part.prompt?.();
      if (prompt !== undefined) return prompt;
    }
    return undefined;
  }

  async task(): Promise<Partial<AgentTask>> {
    let task: Partial<AgentTask> = {};
    for (const part of this.parts) if (part.task) task = { ...task, ...(await part.task()) };
    return task;
  }

  /** Each part's attachment of the run, in order; close them all when the run ends. */
  async attach(signal: AbortSignal): Promise<RunAttachment[]> {
    const attached: RunAttachment[] = [];
    try {
      for (const part of this.parts) {
        const one = await part.attach?.(signal);
        if (one) attached.push(one);
      }
    } catch (err) {
      for (const one of attached) one.close();
      throw err;
    }
    return attached;
  }

  async afterRun(result: AgentResult): Promise<void> {
    for (const part of this.parts) await part.afterRun?.(result);
  }

  async holds(answer: string, attempt: number): Promise<boolean> {
    for (const part of this.parts) if (await part.holds?.(answer, attempt)) return true;
    return false;
  }

  async extraFor(deliverer: Pick<Deliverer, 'conversation'>, extra: Record<string, string>, destination: string): Promise<Record<string, string>> {
    let out = extra;
    for (const part of this.parts) if (part.extraFor) out = await part.extraFor(deliverer, out, destination);
    return out;
  }

  async delivered(answer: string, deliverer: Pick<Deliverer, 'conversation'>, receipt: unknown, destination: string): Promise<void> {
    for (const part of this.parts) await part.delivered?.(answer, deliverer, receipt, destination);
  }
}
