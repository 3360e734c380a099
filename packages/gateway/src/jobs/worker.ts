// Worker pool: leases jobs, renders the prompt, runs the agent, delivers; retries with backoff, keeps dead letters.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'winston';
import type { AgentResult, AgentRunner, Deliverer, JobOutcome, RouteBudget, Skill, TemplateVars, WindowCounters } from '@hookwise/core';
import { HookwiseError, describeError, errorMessage, isHookwiseError, isRetryable } from '@hookwise/core';
import { BudgetKeeper, type SpentBudget } from './budget';
import { DEFAULT_SILENT_MARKER } from '../config/schema';
import { routeFromJob } from './job-route';
import type { StoreStatus } from '../observe/store-status';
import type { Lifecycle } from '../observe/lifecycle';
import type { Route, RouteTable } from '../routes/routes';
import { silentAnswer, silentNote } from './silent-answer';
import { MemoryWindowCounters } from '../stores/memory-counters';
import type { DestinationState, Job, JobQueue, JobStep, RouteDestination } from '@hookwise/core';
import { renderExtra, renderPrompt } from '@hookwise/core';

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface WorkerDeps {
  jobs: JobQueue;
  routes: RouteTable;
  agentFor(route: Route): AgentRunner | Promise<AgentRunner>;
  delivererFor(route: Route): Deliverer | Promise<Deliverer>;
  skillsFor(route: Route): Skill[];
  retry: RetryPolicy;
  concurrency: number;
  agentTimeoutMs: number;
  logger: Logger;
  /** How long a lease lasts; renewed at a third of it while the job runs. */
  leaseMs?: number;
  /** How often idle workers look for due or orphaned jobs even without a wake-up. */
  pollMs?: number;
  random?: () => number;
  /** Told about agent runs, deliveries, retries and dead letters; only events someone listens to are built. */
  lifecycle?: Lifecycle;
  /** The agent runner a route uses (its own or the global one), for lifecycle events. */
  runnerOf?(route: Route): string;
  /** Told whether leasing worked, for /health (a failing store is reported without a query of its own). */
  storeStatus?: StoreStatus;
  /** Where runs and tokens are counted for budgets (`Store.counters`); absent: in this process's memory. */
  counters?: WindowCounters;
  /** `agent.budget`: a limit on every route's runs together. */
  budget?: RouteBudget;
  /** `agent.silent_marker` (default `[SILENT]`); a route's `silent_marker` wins. */
  silentMarker?: string;
}

/** Exponential backoff with jitter: base * 2^(attempt-1), capped, then scaled into [50%, 100%]. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp * (0.5 + random() * 0.5));
}

/**
 * What a job's templates (prompt, deliver_extra) see beside its payload: `{__events__}`, every event's payload
 * (a coalesced job in mode `all`; else the one payload, as a list), and `{__event_count__}`, how many events it
 * stands for.
 */
export function templateVarsOf(job: Pick<Job, 'payload' | 'coalesced'>): TemplateVars {
  return { __events__: job.coalesced?.payloads ?? [job.payload], __event_count__: job.coalesced?.deliveryIds.length ?? 1 };
}

/**
 * A job's prompt. A route without a prompt template gets the payload dump: of every event when the job holds them
 * all (a coalesced job in mode `all`), else of its one payload, as before coalescing existed.
 */
export function promptOf(template: string | undefined, job: Pick<Job, 'payload' | 'coalesced'>): string {
  const vars = templateVarsOf(job);
  return renderPrompt(template, job.payload, template || job.coalesced?.payloads ? vars : undefined);
}

/** What the delivery step came to: the job's receipt, or the failure to record. */
interface DeliveryOutcome {
  receipt?: unknown;
  failure?: { err: unknown; attempt: number; destination: string };
}

/**
 * Each destination's state for this attempt of the delivery step: as stored on the job, new ones pending. A
 * step that starts afresh (attempt 1: the answer just saved, or a dead letter retried) gives every destination
 * not yet delivered its attempts back; a job stored before fan-out made `attempt - 1` attempts to its one
 * destination.
 */
export function destinationStates(job: Pick<Job, 'destinations'>, destinations: RouteDestination[], attempt: number): DestinationState[] {
  const stored = new Map((job.destinations ?? []).map((st) => [st.destination, st]));
  return destinations.map((target) => {
    const name = target.name ?? target.to;
    const found = stored.get(name);
    if (!found) return { destination: name, status: 'pending', attempts: job.destinations ? 0 : Math.max(0, attempt - 1), errors: [] };
    const state: DestinationState = { ...found, errors: [...found.errors] };
    if (state.status !== 'delivered' && attempt <= 1) Object.assign(state, { status: 'pending', attempts: 0 });
    return state;
  });
}

export class WorkerPool {
  readonly owner = `worker-${process.pid}-${randomBytes(4).toString('hex')}`;
  private running = false;
  private pumping = false;
  private readonly active = new Map<string, AbortController>();
  private idle: Array<() => void> = [];
  private unsubscribe?: () => void;
  private poller?: NodeJS.Timeout;
  private readonly leaseMs: number;
  /** The last lease failure's message while leasing fails; undefined while it works. */
  private leaseProblem?: string;
  private readonly budgets: BudgetKeeper;
  /** Per route and budget: the end of the window whose refusal was logged as a warning (the rest are info). */
  private readonly budgetWarned = new Map<string, number>();

  constructor(private readonly deps: WorkerDeps) {
    this.leaseMs = deps.leaseMs ?? 30_000;
    this.budgets = new BudgetKeeper(deps.counters ?? new MemoryWindowCounters(), deps.budget);
  }

  get inFlight(): number {
    return this.active.size;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    if (!this.deps.counters) {
      const budgeted = this.deps.budget !== undefined || this.deps.routes.staticRoutes().some((route) => route.budget !== undefined);
      this.deps.logger[budgeted ? 'warn' : 'debug'](
        'budgets: the store keeps no counters, so agent runs and tokens are counted by this process alone (each gateway counts its own, and a restart starts afresh)',
      );
    }
    this.unsubscribe = this.deps.jobs.onReady?.(() => this.pump());
    this.poller = setInterval(() => this.pump(), this.deps.pollMs ?? 1000);
    this.poller.unref();
    this.pump();
  }

  /** Takes jobs while there is room; one pump at a time so that concurrency is never exceeded. */
  pump(): void {
    // At capacity there is nothing to take: every accepted job announces itself, so this is the common case under load.
    if (!this.running || this.pumping || this.active.size >= this.deps.concurrency) return;
    this.pumping = true;
    void (async () => {
      try {
        while (this.running && this.active.size < this.deps.concurrency) {
          const job = await this.deps.jobs.lease(this.owner, this.leaseMs);
          this.leaseWorked();
          if (!job) break;
          const controller = new AbortController();
          this.active.set(job.id, controller);
          void this.process(job, controller).finally(() => {
            this.active.delete(job.id);
            if (this.active.size === 0) for (const resolve of this.idle.splice(0)) resolve();
            this.pump();
          });
        }
      } catch (err) {
        this.leaseFailed(err);
      } finally {
        this.pumping = false;
      }
    })();
  }

  /**
   * A failing store fails every poll (once a second): the first failure is logged, repeats only when the reason
   * changes, and the recovery once, so that a store locked for an hour does not write 3,600 identical lines.
   */
  private leaseFailed(err: unknown): void {
    const message = errorMessage(err);
    this.deps.storeStatus?.failed('lease', message);
    if (message === this.leaseProblem) return;
    this.leaseProblem = message;
    this.deps.logger.error(`worker could not lease a job: ${message}; retrying every poll (this line repeats only when the reason changes)`);
  }

  private leaseWorked(): void {
    this.deps.storeStatus?.succeeded('lease');
    if (this.leaseProblem === undefined) return;
    this.leaseProblem = undefined;
    this.deps.logger.info('worker: the store answers again; leasing jobs');
  }

  /** Stops taking jobs, lets running ones finish until the deadline, then aborts and hands back the rest. */
  async stop(deadlineMs: number): Promise<{ unfinished: string[] }> {
    this.running = false;
    this.unsubscribe?.();
    if (this.poller) clearInterval(this.poller);
    if (this.active.size > 0) {
      await Promise.race([new Promise<void>((r) => this.idle.push(r)), new Promise((r) => setTimeout(r, deadlineMs).unref())]);
    }
    const unfinished = [...this.active.keys()];
    for (const [id, controller] of this.active) {
      controller.abort(new HookwiseError('HW_E_SHUTTING_DOWN', 'gateway shutting down'));
      await this.deps.jobs.release(id).catch(() => undefined);
    }
    return { unfinished };
  }

  private async process(job: Job, controller: AbortController): Promise<void> {
    const { jobs } = this.deps;
    const renew = setInterval(
      () => {
        void jobs.renew(job.id, this.owner, this.leaseMs).catch(() => undefined);
      },
      Math.max(1000, Math.floor(this.leaseMs / 3)),
    );
    renew.unref();
    let step: JobStep = job.step;
    let attempt = job.attempts;
    // For the lifecycle events of a failure: when the failing step began, and where a delivery was going.
    let stepStartedAt = performance.now();
    let destination: string | undefined;
    try {
      const route = this.routeOf(job);
      let answer = job.answer;
      if (step === 'agent' || answer === undefined) {
        const spent = await this.budgets.admit(route.name, route.budget);
        if (spent) return await this.budgetSpent(route, job, spent);
        if ((job.coalesced?.deliveryIds.length ?? 0) > 1) this.logCoalesced(route, job);
        const prompt = promptOf(route.prompt, job);
        const result = await this.runAgent(route, job, prompt, controller.signal);
        // Counted even when shutdown came meanwhile: the tokens are spent.
        await this.recordUsage(route, job, result.usage);
        if (controller.signal.aborted) return;
        answer = result.text;
        await jobs.saveAnswer(job.id, prompt, answer, result.usage);
        step = 'deliver';
        attempt = 1;
      }
      // Also for an answer saved earlier (a restart between saving and completing): the same answer, the same end.
      const marker = route.silentMarker ?? this.deps.silentMarker ?? DEFAULT_SILENT_MARKER;
      const silent = silentAnswer(answer, marker);
      if (silent) {
        const note = silentNote(silent, marker);
        await jobs.complete(job.id, {}, { outcome: 'silent', note });
        this.deps.logger.info(`${job.deliveryId} on route '${route.name}' ended silent: ${note}`, { route: route.name, delivery_id: job.deliveryId });
        this.completed(route, job, attempt, 'silent', [], note);
        return;
      }
      if (route.destinations.length === 0) {
        // `deliver: none`: the agent acted through its tools; the job did what it should.
        await jobs.complete(job.id, { target: 'none' });
        this.deps.logger.info(`${job.deliveryId} on route '${route.name}' done: the route delivers nothing (deliver: none)`, {
          route: route.name,
          delivery_id: job.deliveryId,
        });
        this.completed(route, job, attempt, 'delivered', []);
        return;
      }
      stepStartedAt = performance.now();
      const outcome = await this.deliverAll(route, job, answer, attempt, controller.signal);
      if (outcome === undefined) return; // cancelled by shutdown: the job is handed back by stop()
      if (outcome.failure) {
        const { err, attempt: failedAttempt, destination: failedAt } = outcome.failure;
        step = 'deliver';
        destination = failedAt;
        await this.recordFailure(job, step, failedAttempt, err, { destination, durationMs: performance.now() - stepStartedAt });
        return;
      }
      await jobs.complete(job.id, outcome.receipt);
      this.completed(
        route,
        job,
        attempt,
        'delivered',
        route.destinations.map((target) => target.name ?? target.to),
      );
    } catch (err) {
      if (controller.signal.aborted && !this.running) return; // handed back by stop()
      await this.recordFailure(job, step, attempt, err, {
        destination: step === 'deliver' ? destination : undefined,
        durationMs: performance.now() - stepStartedAt,
      });
    } finally {
      clearInterval(renew);
    }
  }

  /**
   * The delivery step: every destination not yet delivered gets one attempt, in the route's order, each with
   * its own attempts, errors and receipt, saved on the job after each one (before the next is tried), so that a
   * retry, a restart or a dead letter's retry never posts again to a destination that has the answer. Returns
   * undefined when shutdown cancelled it, the job's receipt when every destination is delivered, else the
   * failure to record: not retryable (a dead letter) when one destination failed for good or ran out of
   * attempts, retryable (with the largest wait any destination asked for) while all failed ones may retry.
   */
  private async deliverAll(route: Route, job: Job, answer: string, attempt: number, signal: AbortSignal): Promise<DeliveryOutcome | undefined> {
    const { logger, jobs, retry } = this.deps;
    const destinations = route.destinations?.length ? route.destinations : [{ to: route.deliver, extra: route.deliverExtra }];
    const states = destinationStates(job, destinations, attempt);
    const failed: Array<{ state: DestinationState; err: unknown }> = [];
    for (const [index, target] of destinations.entries()) {
      const state = states[index];
      if (state.status === 'delivered') continue;
      const name = state.destination;
      state.attempts += 1;
      const startedAt = performance.now();
      try {
        const deliverer = await this.deps.delivererFor({ ...route, deliver: target.to, deliverExtra: target.extra });
        const receipt = await deliverer.deliver(
          {
            text: answer,
            route: route.name,
            event: job.event,
            deliveryId: job.deliveryId,
            extra: renderExtra(target.extra, job.payload, templateVarsOf(job)),
            destination: name,
          },
          { signal, attempt: state.attempts },
        );
        // Recorded even when shutdown came meanwhile: the platform has the answer, so it must not be sent again.
        Object.assign(state, { status: 'delivered', receipt: receipt ?? {}, deliveredAt: Date.now() });
        await jobs.saveDestinations(job.id, states);
        if (signal.aborted) return undefined;
        logger.info(`delivered ${job.deliveryId} on route '${route.name}' via ${name}`, { route: route.name, delivery_id: job.deliveryId });
        const { lifecycle } = this.deps;
        if (lifecycle?.has('delivered')) {
          lifecycle.emit('delivered', {
            jobId: job.id,
            route: route.name,
            deliveryId: job.deliveryId,
            event: job.event,
            attempt: state.attempts,
            destination: name,
            durationMs: performance.now() - startedAt,
            receipt: receipt ?? {},
          });
        }
      } catch (err) {
        if (signal.aborted && !this.running) return undefined;
        const retryable = isRetryable(err);
        state.errors.push({ at: Date.now(), step: 'deliver', attempt: state.attempts, destination: name, message: errorMessage(err), retryable });
        if (!retryable || state.attempts >= retry.maxAttempts) state.status = 'dead';
        failed.push({ state, err });
        // Saved now: the next destination's attempt may outlive this process.
        await jobs.saveDestinations(job.id, states);
      }
    }
    if (failed.length === 0) {
      // One destination: its receipt as before fan-out; several: each destination's receipt by its name.
      if (states.length === 1) return { receipt: states[0].receipt ?? {} };
      return { receipt: { destinations: Object.fromEntries(states.map((st) => [st.destination, st.receipt ?? {}])) } };
    }
    const dead = failed.filter((f) => f.state.status === 'dead');
    const decisive = dead.length ? dead : failed;
    const delivered = states.filter((st) => st.status === 'delivered').map((st) => st.destination);
    const note = states.length > 1 && delivered.length ? ` (delivered to ${delivered.join(', ')}; not sent there again)` : '';
    if (failed.length === 1 && !note) return { failure: { err: failed[0].err, attempt: failed[0].state.attempts, destination: failed[0].state.destination } };
    const message = failed.map((f) => `${f.state.destination}: ${errorMessage(f.err)}`).join('; ') + note;
    const waits = failed.map((f) => (isHookwiseError(f.err) ? f.err.retryAfterSeconds : undefined)).filter((w): w is number => w !== undefined);
    const err = new HookwiseError('HW_E_DELIVERY', message, { retryable: dead.length === 0, retryAfterSeconds: waits.length ? Math.max(...waits) : undefined });
    return { failure: { err, attempt: Math.max(...decisive.map((f) => f.state.attempts)), destination: decisive.map((f) => f.state.destination).join(',') } };
  }

  /**
   * The route a job runs with: the route's current definition while it exists (a fix to a route applies to its
   * waiting and retried jobs), else the definition the job was accepted under (docs/security.md).
   */
  private routeOf(job: Job): Route {
    const current = this.deps.routes.get(job.route);
    if (current) return current;
    if (job.routeDefinition) {
      this.deps.logger.info(`route '${job.route}' no longer exists; delivery ${job.deliveryId} runs with the route definition it was accepted under`, {
        route: job.route,
        delivery_id: job.deliveryId,
      });
      return routeFromJob(job.route, job.routeDefinition);
    }
    throw new HookwiseError(
      'HW_E_UNKNOWN_ROUTE',
      `route '${job.route}' no longer exists and the job was stored without its route definition (by an older version): add the route again and retry the dead letter`,
      { retryable: false },
    );
  }

  private async runAgent(route: Route, job: Job, prompt: string, shutdown: AbortSignal): Promise<AgentResult> {
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
    if (lifecycle?.has('agent_started')) lifecycle.emit('agent_started', { ...this.jobEvent(route, job), runner: this.runnerName(route) });
    let failure: unknown;
    let usage: AgentResult['usage'];
    try {
      const runner = await this.deps.agentFor(route);
      const run = runner.run(
        { prompt, skills: this.deps.skillsFor(route), route: route.name, event: job.event, deliveryId: job.deliveryId },
        { signal: controller.signal },
      );
      const result = await Promise.race([run, timedOut]);
      if (!result || typeof result.text !== 'string') throw new HookwiseError('HW_E_AGENT', 'agent runner returned no text', { retryable: false });
      usage = result.usage;
      return result;
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      clearTimeout(timer);
      shutdown.removeEventListener('abort', onShutdown);
      if (lifecycle?.has('agent_finished')) {
        const outcome = failure === undefined ? 'ok' : isHookwiseError(failure) && failure.code === 'HW_E_AGENT_TIMEOUT' ? 'timeout' : 'error';
        const durationMs = performance.now() - startedAt;
        lifecycle.emit('agent_finished', {
          ...this.jobEvent(route, job),
          runner: this.runnerName(route),
          outcome,
          durationMs,
          error: failure === undefined ? undefined : errorMessage(failure),
          usage,
        });
      }
    }
  }

  /**
   * A budget refused the run: the job waits for the window's end (released with a note, its attempt not counted)
   * or ends as skipped. The first refusal per route, budget and window is a warning, the rest are info lines.
   */
  private async budgetSpent(route: Route, job: Job, spent: SpentBudget): Promise<void> {
    const { jobs, logger, lifecycle } = this.deps;
    if (spent.action === 'wait') await jobs.release(job.id, { runAt: spent.until, note: spent.note });
    else await jobs.complete(job.id, {}, { outcome: 'skipped', note: spent.note });
    const key = `${spent.scope}\u0000${route.name}\u0000${spent.budget}`;
    const first = this.budgetWarned.get(key) !== spent.until;
    if (first) {
      const now = Date.now();
      for (const [other, until] of this.budgetWarned) if (until <= now) this.budgetWarned.delete(other);
      this.budgetWarned.set(key, spent.until);
    }
    const more = first ? ' (further refusals in this window are logged at info)' : '';
    logger[first ? 'warn' : 'info'](`${job.deliveryId} on route '${route.name}': ${spent.note}${more}`, { route: route.name, delivery_id: job.deliveryId });
    if (lifecycle?.has('budget_exceeded')) {
      const { scope, budget, limit, action, until, note } = spent;
      lifecycle.emit('budget_exceeded', { ...this.jobEvent(route, job), scope, budget, limit, action, until, note });
    }
    if (spent.action === 'skip') this.completed(route, job, job.attempts, 'skipped', [], spent.note);
  }

  /** Adds a run's tokens to the budget counters; a failure is logged, never fails the job (its answer is to be kept). */
  private async recordUsage(route: Route, job: Job, usage: AgentResult['usage']): Promise<void> {
    try {
      await this.budgets.recordUsage(route.name, usage);
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

  private completed(route: Route, job: Job, attempt: number, outcome: JobOutcome, destinations: string[], note?: string): void {
    const { lifecycle } = this.deps;
    if (!lifecycle?.has('completed')) return;
    lifecycle.emit('completed', { jobId: job.id, route: route.name, deliveryId: job.deliveryId, event: job.event, attempt, outcome, destinations, note });
  }

  /** What every agent event says of the job; the agent step's attempt is the job's. */
  private jobEvent(route: Route, job: Job): { jobId: string; route: string; deliveryId: string; event: string; attempt: number } {
    return { jobId: job.id, route: route.name, deliveryId: job.deliveryId, event: job.event, attempt: job.attempts };
  }

  private runnerName(route: Route): string {
    return this.deps.runnerOf?.(route) ?? route.agent?.runner ?? 'default';
  }

  private async recordFailure(job: Job, step: JobStep, attempt: number, err: unknown, failed: { destination?: string; durationMs: number }): Promise<void> {
    const { logger, retry } = this.deps;
    const retryable = isRetryable(err);
    const message = errorMessage(err);
    const willRetry = retryable && attempt < retry.maxAttempts;
    let retryAt: number | null = null;
    if (willRetry) {
      let delay = backoffDelay(attempt, retry, this.deps.random);
      const hinted = isHookwiseError(err) ? err.retryAfterSeconds : undefined;
      if (hinted !== undefined) delay = Math.max(delay, hinted * 1000);
      retryAt = Date.now() + delay;
      logger.warn(
        `${step} step of ${job.deliveryId} on route '${job.route}' failed (attempt ${attempt}/${retry.maxAttempts}), retrying in ${Math.round(delay / 1000)}s: ${message}`,
        { route: job.route, delivery_id: job.deliveryId },
      );
    } else {
      // The link to the error's docs section is for the person reading the log; the stored message stays plain.
      logger.error(
        `${step} step of ${job.deliveryId} on route '${job.route}' failed for good after ${attempt} attempt(s)${retryable ? '' : ' (not retryable)'}; kept as a dead letter: ${describeError(err)}`,
        { route: job.route, delivery_id: job.deliveryId },
      );
    }
    try {
      await this.deps.jobs.fail(
        job.id,
        { at: Date.now(), step, attempt, ...(failed.destination ? { destination: failed.destination } : {}), message, retryable },
        retryAt,
      );
    } catch (storeErr) {
      logger.error(`could not record the failure of job ${job.id}: ${errorMessage(storeErr)}`);
    }
    // After the store write, so that a listener that reads the job sees the retry or the dead letter.
    const { lifecycle } = this.deps;
    if (willRetry ? lifecycle?.has('retry_scheduled') : lifecycle?.has('dead_lettered')) {
      const event = { jobId: job.id, route: job.route, deliveryId: job.deliveryId, event: job.event, attempt, step, error: message, retryable, ...failed };
      if (willRetry) lifecycle?.emit('retry_scheduled', { ...event, maxAttempts: retry.maxAttempts, delayMs: Math.max(0, (retryAt ?? 0) - Date.now()) });
      else lifecycle?.emit('dead_lettered', event);
    }
  }
}
