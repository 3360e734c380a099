// The agent step of a job: admitted by the budgets, the prompt rendered, the route's runner run under the agent
// timeout and shutdown, inside the run's sandbox (opened here, closed after), its tokens counted, its answer
// saved on the job for the delivery step with how the run was sandboxed.
import type { AgentResult, AgentRunSandbox, AgentUsage, Job } from '@hookwise/core';
import { HookwiseError, errorMessage, isHookwiseError } from '@hookwise/core';
import { MemoryWindowCounters } from '../stores/memory-counters';
import type { Route } from '../routes/routes';
import { BudgetKeeper, budgetKeys, type BudgetKeys } from './budget';
import { BudgetRefusals } from './budget-refusals';
import { completeSkipped, emitCompleted, jobEvent } from './job-events';
import { promptHygieneOf, runPromptOf } from './prompt-hygiene';
import { logUnresolved } from './job-templates';
import { scrubRunAnswer } from './answer-scrub';
import { fdExhaustionFailure, type OpenAgentSandbox } from './agent-sandbox';
import { JobParts, type RunAttachment } from './job-hooks';
import type { WorkerDeps } from './worker-deps';

export type AgentStepDeps = Pick<
  WorkerDeps,
  'jobs' | 'logger' | 'lifecycle' | 'agentFor' | 'skillsFor' | 'agentTimeoutMs' | 'runnerOf' | 'counters' | 'budget' | 'sandboxes' | 'outbound' | 'previous'
>;

export class AgentStep {
  private readonly budgets: BudgetKeeper;
  private readonly refusals: BudgetRefusals;

  constructor(private readonly deps: AgentStepDeps) {
    this.budgets = new BudgetKeeper(deps.counters ?? new MemoryWindowCounters(), deps.budget);
    this.refusals = new BudgetRefusals(deps);
  }

  /**
   * Runs the agent for a job and saves its answer. Returns the answer, or undefined when there is nothing to
   * deliver now: a budget refused the run (the job waits or was skipped), its conversation used its turns while
   * the reply waited (skipped), or shutdown came during the run.
   */
  async run(route: Route, job: Job, signal: AbortSignal, parts: JobParts = JobParts.NONE): Promise<string | undefined> {
    // deliver_only: no runner and no budget; the rendered prompt is the answer.
    const given = parts.answerWithoutRun();
    if (given !== undefined) {
      // The payload's text in the rendered prompt may carry a secret (or ask for one): out before storing.
      const where = { route: route.name, deliveryId: job.deliveryId };
      const answer = scrubRunAnswer(this.deps.outbound, this.deps.logger, where, given, undefined as AgentUsage | undefined, 'deliver-only');
      await this.deps.jobs.saveAnswer(job.id, answer.text, answer.text, answer.usage);
      return answer.text;
    }
    // A feature may end the job before its run (a reply whose conversation used its turns while it waited).
    const skip = await parts.skipReason();
    if (skip) {
      this.deps.logger.info(`${job.deliveryId} on route '${route.name}' skipped: ${skip}`, { route: route.name, delivery_id: job.deliveryId });
      await completeSkipped(this.deps.jobs, this.deps.lifecycle, route, job, skip);
      return undefined;
    }
    // With `per:` each rendered key (a sender) has windows of its own.
    const keys = budgetKeys(route.budget, this.deps.budget, job.payload);
    const spent = await this.budgets.admit(route.name, route.budget, keys);
    if (spent) {
      await this.refusals.refused(route, job, spent);
      return undefined;
    }
    if ((job.coalesced?.deliveryIds.length ?? 0) > 1) this.logCoalesced(route, job);
    // Payload strings cleaned of hidden text (prompt-hygiene.ts); agent.prompt_hygiene: false opts out. The
    // model-facing runners fence the prompt per run themselves (agent-kit's fenceUntrusted).
    // {__previous__}: the payload of the last event answered for this job's key (previous-event.ts).
    const templated = { ...job, previous: await this.deps.previous?.payloadBefore(route.name, job) };
    // A feature's prompt (a conversation's earlier turns and the reply), else the route's.
    const featurePrompt = await parts.prompt();
    const prompt = featurePrompt ?? runPromptOf(route.prompt, templated, { hygiene: promptHygieneOf(route) });
    logUnresolved(this.deps.logger, route, templated);
    const { result, sandbox, attached, ending } = await this.runAgent(route, job, prompt, signal, parts);
    // What the features recorded during the run (the actions it asked for, the model proxy's tokens and dollars).
    const usage = attached.reduce((u, one) => one.usage?.(u) ?? u, withSandbox(result.usage, sandbox));
    // Counted even when shutdown came meanwhile: the tokens are spent.
    await this.recordUsage(route, job, usage, keys);
    if (ending) return this.endRun(route, job, prompt, usage, ending);
    await parts.afterRun(result);
    if (signal.aborted) return undefined;
    // Secrets out before the answer is stored: every destination and retry reads the stored answer (answer-scrub.ts).
    const where = { route: route.name, deliveryId: job.deliveryId };
    const answer = scrubRunAnswer(this.deps.outbound, this.deps.logger, where, result.text, usage, 'answer');
    await this.deps.jobs.saveAnswer(job.id, prompt, answer.text, answer.usage);
    await this.deps.previous?.remember(route.name, job);
    return answer.text;
  }

  private async runAgent(
    route: Route,
    job: Job,
    prompt: string,
    shutdown: AbortSignal,
    parts: JobParts,
  ): Promise<{ result: AgentResult; sandbox?: AgentRunSandbox; attached: RunAttachment[]; ending?: RunEnding }> {
    // The run's signal aborts on shutdown or at the timeout; both hooks are undone when the run ends. With
    // AbortSignal.timeout + AbortSignal.any every finished run kept about 3 KB (timer, signals, listeners)
    // alive until its timeout, 5 minutes by default: hundreds of MB under a burst (docs/performance.md).
    const controller = new AbortController();
    const onShutdown = () => controller.abort(shutdown.reason);
    let timer: NodeJS.Timeout | undefined;
    // A runner that ignores its signal still loses the race against the timeout.
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
        reject(new HookwiseError('HW_E_AGENT_TIMEOUT', `agent run exceeded ${this.deps.agentTimeoutMs / 1000}s`, { retryable: true }));
      }, this.deps.agentTimeoutMs);
    });
    if (shutdown.aborted) onShutdown();
    else shutdown.addEventListener('abort', onShutdown, { once: true });
    const { lifecycle } = this.deps;
    const startedAt = performance.now();
    if (lifecycle?.has('agent_started')) lifecycle.emit('agent_started', { ...jobEvent(route, job), runner: this.runnerName(route) });
    let failure: unknown;
    let usage: AgentResult['usage'];
    let opened: OpenAgentSandbox | undefined;
    let attached: RunAttachment[] = [];
    try {
      const runner = await this.deps.agentFor(route);
      let skills = this.deps.skillsFor(route);
      // Every process of the run starts inside this sandbox: the runner gets it in the task.
      attached = await parts.attach(controller.signal);
      let needs = runner.sandboxNeeds?.(route.name);
      for (const one of attached) needs = one.needs?.(needs) ?? needs;
      opened = await this.deps.sandboxes?.open(route, job, needs, skills);
      if (opened) skills = opened.skills;
      let sandbox = opened?.sandbox;
      for (const one of attached) if (sandbox) sandbox = one.sandbox?.(sandbox) ?? sandbox;
      const task = { ...(await parts.task()), prompt, skills, route: route.name, event: job.event, deliveryId: job.deliveryId, sandbox };
      const run = runner.run(task, { signal: controller.signal });
      const result = await Promise.race([run, timedOut]);
      if (!result || typeof result.text !== 'string') throw new HookwiseError('HW_E_AGENT', 'agent runner returned no text', { retryable: false });
      usage = result.usage;
      const fact = opened && { mode: opened.sandbox.mode, sandboxed: opened.sandbox.sandboxed, reason: opened.sandbox.reason };
      return { result, sandbox: fact, attached, ending: endingOf(attached) };
    } catch (err) {
      failure = fdExhaustionFailure(err, `agent run of ${job.deliveryId} on route '${route.name}'`) ?? err;
      // A part that stopped the run (a spend cap) decides how the job ends: the runner's failure is its doing.
      const ending = endingOf(attached);
      if (ending && !shutdown.aborted) {
        const fact = opened && { mode: opened.sandbox.mode, sandboxed: opened.sandbox.sandboxed, reason: opened.sandbox.reason };
        return { result: { text: '' }, sandbox: fact, attached, ending };
      }
      throw failure;
    } finally {
      clearTimeout(timer);
      // After the runner returned (or timed out: its processes die with their sandbox); a failed close is logged only.
      await opened?.close().catch((err: unknown) =>
        this.deps.logger.warn(`could not clean up the sandbox of ${job.deliveryId} on route '${route.name}': ${errorMessage(err)}`, {
          route: route.name,
          delivery_id: job.deliveryId,
        }),
      );
      for (const one of attached) one.close();
      shutdown.removeEventListener('abort', onShutdown);
      if (lifecycle?.has('agent_finished')) {
        const outcome = failure === undefined ? 'ok' : isHookwiseError(failure) && failure.code === 'HW_E_AGENT_TIMEOUT' ? 'timeout' : 'error';
        const durationMs = performance.now() - startedAt;
        lifecycle.emit('agent_finished', {
          ...jobEvent(route, job),
          runner: this.runnerName(route),
          outcome,
          durationMs,
          error: failure === undefined ? undefined : this.scrubFailure(errorMessage(failure)),
          usage,
        });
      }
    }
  }

  /**
   * A part stopped the run (a spend cap): its usage is kept with an empty answer (were the job leased again, there
   * is nothing to deliver) and the job ends as the part says, not retried.
   */
  private async endRun(route: Route, job: Job, prompt: string, usage: AgentUsage | undefined, ending: RunEnding): Promise<undefined> {
    this.deps.logger.warn(`${job.deliveryId} on route '${route.name}' ended ${ending.outcome}: ${ending.note}`, {
      route: route.name,
      delivery_id: job.deliveryId,
    });
    await this.deps.jobs.saveAnswer(job.id, prompt, '', usage);
    await this.deps.jobs.complete(job.id, {}, ending);
    emitCompleted(this.deps.lifecycle, route, job, job.attempts, ending.outcome, [], ending.note);
    return undefined;
  }

  /** Adds a run's tokens and dollars to the budget counters; a failure is logged, never fails the job (its answer is to be kept). */
  private async recordUsage(route: Route, job: Job, usage: AgentResult['usage'], keys: BudgetKeys): Promise<void> {
    try {
      await this.budgets.recordUsage(route.name, usage, keys);
    } catch (err) {
      this.deps.logger.warn(`could not count the tokens of ${job.deliveryId} on route '${route.name}' for its budget: ${errorMessage(err)}`, {
        route: route.name,
        delivery_id: job.deliveryId,
      });
    }
  }

  /** A coalesced job's run stands for several deliveries: the log says which (their answers all come from this run). */
  private logCoalesced(route: Route, job: Job): void {
    const ids = job.coalesced?.deliveryIds ?? [job.deliveryId];
    this.deps.logger.info(`agent run for ${job.deliveryId} on route '${route.name}' stands for ${ids.length} coalesced events: ${ids.join(', ')}`, {
      route: route.name,
      delivery_id: job.deliveryId,
      delivery_ids: ids,
    });
  }

  /** Failure text as it leaves in lifecycle events: through the gateway's one exit (observe/outbound-scrub.ts). */
  private scrubFailure(text: string): string {
    return this.deps.outbound ? this.deps.outbound.scrub('failure', text) : text;
  }

  private runnerName(route: Route): string {
    return this.deps.runnerOf?.(route) ?? route.agent?.runner ?? 'default';
  }
}

type RunEnding = NonNullable<ReturnType<NonNullable<RunAttachment['ending']>>>;

function endingOf(attached: RunAttachment[]): RunEnding | undefined {
  for (const one of attached) {
    const ending = one.ending?.();
    if (ending) return ending;
  }
  return undefined;
}

/** The run's usage with how it was sandboxed (kept with the usage, so every store keeps it without a change). */
function withSandbox(usage: AgentUsage | undefined, sandbox: AgentRunSandbox | undefined): AgentUsage | undefined {
  return sandbox ? { ...usage, sandbox } : usage;
}
