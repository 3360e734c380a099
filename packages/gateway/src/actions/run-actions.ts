// The actions of one agent run: each call the agent makes over its job channel's MCP endpoint is
// checked against the route's `actions:` (action-policy.ts), then carried out while the run goes on: a contributed
// action by its deliverer's `run` with that destination's credentials, `message` and `subscribe` by the gateway, so the agent reads the outcome (a comment's URL, or why it failed) as the
// tool's result. Performing during the run keeps one step per call: no second pass after the answer, and a
// `deliver: none` route that only acts needs nothing more.
//
// Each accepted call is one step with the guarantees a delivery has: its key is the job and the call's index
// (`action:<job id>:<index>`, kept in the store's progress space once it succeeded), so a run that is retried
// after a timeout or a crash and asks for the same call again gets the stored result instead of a second
// comment; a failure that may be retried (5xx, 429, network) is tried again with the worker's backoff up to
// retry.max_attempts. Every call, refused ones included, is recorded with its outcome and stored with the run's
// answer (`usage.actions`, beside the sandbox fact), which `deliveries show` and the admin API show.
//
// An action's `max` counts per event, not per run: the calls the job's runs accepted are kept in the progress
// space too (`action-calls:<job id>:<action>`, written before the call is performed), so a job tried three times
// makes at most `max` calls in all. A retried run that repeats an earlier call (same index, same input) is that
// call again, not another one: it is not counted twice, and a done one is answered from its stored result.
import { createHash } from 'node:crypto';
import type { Logger } from 'winston';
import type { AgentUsage, Deliverer, DelivererAction, Job, ProgressKV } from '@hookwise/core';
import { HookwiseError, errorMessage, isHookwiseError, isRetryable, renderExtra, wrapPluginError } from '@hookwise/core';
import type { Route } from '../routes/routes';
import type { OutboundScrubber } from '../observe/outbound-scrub';
import { templateVarsOf } from '../jobs/job-templates';
import { backoffDelay, type RetryPolicy } from '../config/retry-policy';
import type { ActionCatalogue, CatalogueEntry } from './action-catalogue';
import { actionTools, checkCall, maxReason, type AcceptedCall, type ActionTool } from './action-policy';

/** One call of the run, as stored on the job and shown to people. */
export interface ActionRecord {
  /** The call's place in the run (0, 1, ...): with the job id, its exactly-once key. */
  index: number;
  action: string;
  status: 'done' | 'failed' | 'refused';
  attempts: number;
  /** What the call asked (refused calls: nothing, their arguments are the agent's text). */
  input?: Record<string, unknown>;
  /** What the other side answered (ids, URLs), once done. */
  receipt?: unknown;
  /** Why it was refused or why it failed. */
  reason?: string;
  at: number;
}

/** What the tool's result says to the agent. */
export interface ActionAnswer {
  ok: boolean;
  text: string;
  /** Refused by the route's policy: never performed. */
  refused?: boolean;
  /** Done: the receipt; failed: what the other side answered, when it said (the job channel's answer to a subscribe). */
  detail?: unknown;
}

/** A subscription made through the channel's own code (job-channel-requests.ts), as the run's session. */
export type SubscribeFn = (name: string, body: Record<string, unknown>) => Promise<{ status: number; body: unknown }>;

export interface JobActionsDeps {
  logger: Logger;
  retry: RetryPolicy;
  progress: ProgressKV;
  delivererById(id: string): Deliverer | Promise<Deliverer>;
  /** The actions routes may name (action-catalogue.ts). */
  catalogue: ActionCatalogue;
  /** Whether `platforms.<id>` switches the deliverer on (for a contributed action whose deliverer requires it). */
  platformEnabled(id: string): boolean;
  random?: () => number;
  /** The gateway's one exit for text: an action's input leaves through it before the action runs. */
  outbound?: Pick<OutboundScrubber, 'scrubValue'>;
}

/** How long a done action's key is kept (a job is retried well within it). */
const DONE_TTL_MS = 30 * 24 * 3600 * 1000;

/** Makes each run's actions (one per gateway). */
export class JobActions {
  constructor(private readonly deps: JobActionsDeps) {}

  /** The actions of one run of a route that lists any; undefined when it lists none. */
  forRun(route: Route, job: Job, signal: AbortSignal): RunActions | undefined {
    return actionTools(this.deps.catalogue, route.actions).length ? new RunActions(this.deps, route, job, signal) : undefined;
  }
}

export class RunActions {
  readonly records: ActionRecord[] = [];
  /** Per action: the calls this job's runs accepted (`<index>:<fingerprint>`), loaded once from the progress space. */
  private readonly accepted = new Map<string, Promise<Set<string>>>();
  /** The writes of those sets, one after the other (the last one holds every call). */
  private written: Promise<unknown> = Promise.resolve();
  private subscribe?: SubscribeFn;

  constructor(
    private readonly deps: JobActionsDeps,
    private readonly route: Route,
    private readonly job: Job,
    private readonly signal: AbortSignal,
  ) {}

  tools(): ActionTool[] {
    return actionTools(this.deps.catalogue, this.route.actions);
  }

  /** The names offered, for the run's environment (HOOKWISE_JOB_ACTIONS). */
  names(): string {
    return this.tools()
      .map((t) => t.name)
      .join(',');
  }

  /** The run's usage with the calls it made, each with its outcome (kept with the usage like the sandbox fact). */
  usage(usage: AgentUsage | undefined): AgentUsage | undefined {
    return this.records.length ? ({ ...usage, actions: this.records } as AgentUsage) : usage;
  }

  /** Set by the job channel: subscriptions go through its checks, as the run's own. */
  bindSubscribe(subscribe: SubscribeFn): void {
    this.subscribe = subscribe;
  }

  /** The calls of `action` this job's runs accepted so far (loaded once per run; an unknown action: none). */
  private acceptedCalls(action: string): Promise<Set<string>> {
    let calls = this.accepted.get(action);
    if (!calls) {
      calls = this.deps.progress
        .get(this.countKey(action))
        .then(
          (stored) => new Set(Array.isArray((stored as { calls?: unknown })?.calls) ? ((stored as { calls: unknown[] }).calls.map(String) as string[]) : []),
        );
      this.accepted.set(action, calls);
    }
    return calls;
  }

  private countKey(action: string): string {
    return `action-calls:${this.job.id}:${action}`;
  }

  async call(name: string, args: unknown): Promise<ActionAnswer> {
    const index = this.records.length;
    // Taken now: the calls made while the count loads get the next places.
    const record: ActionRecord = { index, action: name, status: 'failed', attempts: 0, at: Date.now() };
    this.records.push(record);
    const where = { route: this.route.name, delivery_id: this.job.deliveryId };
    const refuse = (reason: string): ActionAnswer => {
      Object.assign(record, { status: 'refused', reason });
      this.deps.logger.info(`action ${name} of ${this.job.deliveryId} on route '${this.route.name}' refused: ${reason}`, where);
      return { ok: false, refused: true, text: `refused: ${reason}` };
    };
    // `max` is checked below against the job's count, so the policy sees none used here.
    const verdict = checkCall(this.deps.catalogue, this.route.actions, name, args, 0);
    if (!verdict.ok) return refuse(verdict.reason);
    // The agent's text leaves with the action: secrets out before it runs, is stored or fingerprinted.
    if (this.deps.outbound) verdict.call.input = this.deps.outbound.scrubValue('action-input', verdict.call.input);
    let calls: Set<string>;
    try {
      calls = await this.acceptedCalls(name);
    } catch (err) {
      return refuse(`the calls this event already made could not be read (${errorMessage(err)}); try again`);
    }
    const fingerprint = fingerprintOf(verdict.call);
    const call = `${index}:${fingerprint}`;
    // Checked and counted in one step (no await between): calls made at once cannot pass `max` together.
    const max = this.route.actions?.[name]?.max;
    if (!calls.has(call)) {
      if (max !== undefined && calls.size >= max) return refuse(maxReason(name, max));
      calls.add(call);
      const kept = { calls: [...calls] };
      const write = this.written.then(() => this.deps.progress.set(this.countKey(name), kept, DONE_TTL_MS));
      this.written = write.catch(() => undefined);
      try {
        await write;
      } catch (err) {
        calls.delete(call);
        return refuse(`the call could not be counted against max (${errorMessage(err)}); try again`);
      }
    }
    record.input = verdict.call.input;
    const key = `action:${this.job.id}:${index}`;
    const stored = (await this.deps.progress.get(key)) as { fingerprint?: string; receipt?: unknown } | undefined;
    if (stored?.fingerprint === fingerprint) {
      // An earlier run of this job did it: never twice.
      Object.assign(record, { status: 'done', receipt: stored.receipt });
      return { ok: true, text: `done (already, by an earlier run of this job): ${JSON.stringify(stored.receipt ?? {})}`, detail: stored.receipt };
    }
    for (;;) {
      record.attempts += 1;
      try {
        const receipt = (await this.perform(verdict.call, record.attempts)) ?? {};
        Object.assign(record, { status: 'done', receipt, at: Date.now() });
        await this.deps.progress.set(key, { fingerprint, receipt }, DONE_TTL_MS);
        this.deps.logger.info(`action ${name} of ${this.job.deliveryId} on route '${this.route.name}' done`, where);
        return { ok: true, text: `done: ${JSON.stringify(receipt)}`, detail: receipt };
      } catch (err) {
        const retry = isRetryable(err) && record.attempts < this.deps.retry.maxAttempts && !this.signal.aborted;
        record.reason = errorMessage(err);
        this.deps.logger.warn(
          `action ${name} of ${this.job.deliveryId} on route '${this.route.name}' failed (attempt ${record.attempts}/${this.deps.retry.maxAttempts})${retry ? ', retrying' : ''}: ${record.reason}`,
          where,
        );
        if (!retry) return { ok: false, text: `failed: ${record.reason}`, detail: (err as { answer?: unknown }).answer };
        const hinted = isHookwiseError(err) ? err.retryAfterSeconds : undefined;
        const delay = Math.max(backoffDelay(record.attempts, this.deps.retry, this.deps.random), (hinted ?? 0) * 1000);
        await abortableDelay(delay, this.signal);
      }
    }
  }

  private async perform(call: AcceptedCall, attempt: number): Promise<unknown> {
    const input = call.input;
    if (call.action === 'message') return this.message(input.to as string, input.text as string, attempt);
    if (call.action === 'subscribe') return this.subscribeRoute(input);
    const entry = this.deps.catalogue.get(call.action);
    if (!entry?.by) throw new HookwiseError('HW_E_DELIVERY', `no deliverer performs the action '${call.action}'`, { retryable: false });
    const deliverer = await this.delivererOf(call.action, entry.by);
    try {
      return await (entry.action as DelivererAction).run(input, {
        deliverer,
        payload: this.job.payload,
        options: this.route.actions?.[call.action] ?? {},
        signal: this.signal,
        attempt,
        route: this.route.name,
        deliveryId: this.job.deliveryId,
      });
    } catch (err) {
      throw wrapPluginError(err, { plugin: entry.by.plugin, kind: 'deliverer', id: entry.by.deliverer, method: `action ${call.action}` });
    }
  }

  /** The deliverer that performs a contributed action: it must be switched on when its plugin requires it. */
  private async delivererOf(action: string, by: NonNullable<CatalogueEntry['by']>): Promise<Deliverer> {
    if (by.requiresEnabled && !this.deps.platformEnabled(by.deliverer)) {
      throw new HookwiseError(
        'HW_E_DELIVERY',
        `${action} needs the ${by.deliverer} destination: set platforms.${by.deliverer}.enabled and its credentials (see the plugin's README)`,
        { retryable: false },
      );
    }
    try {
      return await this.deps.delivererById(by.deliverer);
    } catch (err) {
      throw new HookwiseError('HW_E_DELIVERY', `${action} needs the ${by.deliverer} destination, which cannot be used: ${errorMessage(err)}`, {
        retryable: false,
        cause: err,
      });
    }
  }

  /** Through the deliverer of the destination (a route destination's name or a deliverer id), with its extra. */
  private async message(to: string, text: string, attempt: number): Promise<unknown> {
    const target = this.route.destinations.find((d) => (d.name ?? d.to) === to) ?? { to, extra: {} };
    const deliverer = await this.deps.delivererById(target.to);
    const receipt = await deliverer.deliver(
      {
        text,
        route: this.route.name,
        event: this.job.event,
        deliveryId: this.job.deliveryId,
        extra: renderExtra(target.extra, this.job.payload, templateVarsOf(this.job)),
        // Its own name: the deliverer's progress for this message is never mixed with the answer's.
        destination: `action:${this.records.length - 1}:${to}`,
      },
      { signal: this.signal, attempt },
    );
    return receipt ?? {};
  }

  private async subscribeRoute(input: Record<string, unknown>): Promise<unknown> {
    if (!this.subscribe) throw new Error('the job channel is not open for this run');
    const { name, ...body } = input;
    const answer = await this.subscribe(name as string, body);
    if (answer.status >= 400) {
      const said = (answer.body as { error?: string } | undefined)?.error ?? `status ${answer.status}`;
      // The channel's answer goes with it: its REST endpoint answers the agent with the same status.
      throw Object.assign(new Error(said), { retryable: false, answer });
    }
    return answer.body;
  }
}

function fingerprintOf(call: AcceptedCall): string {
  return createHash('sha256')
    .update(JSON.stringify([call.action, call.input]))
    .digest('hex')
    .slice(0, 16);
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
