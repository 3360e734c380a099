// A gateway's lifecycle events (accepted, rejected, agent runs, deliveries, retries, dead letters) and the typed
// emitter the pipeline and the workers report to; metrics, traces and the dashboard are its listeners.
import type { AgentUsage, HeaderMap, JobOutcome, JobStep } from '@hookwise/core';
import { LIFECYCLE_EVENT_NAMES, type LifecycleEventName } from '../config/lifecycle-event-names';

/** Why a webhook request was refused (bounded: used as a metric label). */
export type RejectionReason =
  | 'shutting_down'
  | 'auth_throttled'
  | 'unknown_route'
  | 'payload_too_large'
  | 'rate_limited'
  | 'missing_signature'
  | 'invalid_signature'
  | 'bad_body'
  | 'client_aborted'
  | 'backpressure'
  | 'store_unavailable'
  | 'other';

/** What every request event carries. `headers` are the request's own: a listener that keeps them must drop secrets (redactHeaders). */
interface RequestEvent {
  /** The route name as requested (for `rejected`, possibly not a route at all: see `knownRoute`). */
  route: string;
  headers: HeaderMap;
  /** Epoch ms at which the body had been read (the request's start for refusals made before that). */
  receivedAt: number;
}

export interface AcceptedEvent extends RequestEvent {
  jobId: string;
  deliveryId: string;
  event: string;
}

export interface DuplicateEvent extends RequestEvent {
  deliveryId: string;
  event: string;
}

export interface IgnoredEvent extends RequestEvent {
  deliveryId: string;
  event: string;
  /** Why no job: the route does not take the event type (`event`), its `filter:` or `transform:` dropped it, the source said it is the gateway's own message (`own_message`), or its sender is not in the route's `allow_from` (`not_allowed`). */
  reason?: 'event' | 'filter' | 'transform' | 'own_message' | 'not_allowed';
  /** For `filter`: the test that failed, e.g. `action is "labeled", not one of "opened", "synchronize"`. */
  filter?: string;
}

export interface RejectedEvent extends RequestEvent {
  knownRoute: boolean;
  status: number;
  reason: RejectionReason;
  /** The source that checked the signature, for missing_signature and invalid_signature ('none' when no source matched). */
  source?: string;
}

/** What the workers report of a job. */
interface JobEvent {
  jobId: string;
  route: string;
  deliveryId: string;
  event: string;
  /** The attempt of the current step, from 1. */
  attempt: number;
}

/** The runner's token counts (core's type, re-exported here for listeners). */
export type { AgentUsage } from '@hookwise/core';

export interface AgentStartedEvent extends JobEvent {
  runner: string;
}

export interface AgentFinishedEvent extends JobEvent {
  runner: string;
  outcome: 'ok' | 'error' | 'timeout';
  durationMs: number;
  /** The error's message when the run failed (already free of secrets, as the stored error is). */
  error?: string;
  /** Tokens used, when the runner reports them. */
  usage?: AgentUsage;
}

export interface DeliveredEvent extends JobEvent {
  destination: string;
  durationMs: number;
  receipt: unknown;
}

/** A failed step: `destination` and `durationMs` are the delivery attempt's when the delivery itself failed. */
interface FailedStepEvent extends JobEvent {
  step: JobStep;
  error: string;
  retryable: boolean;
  destination?: string;
  durationMs: number;
}

export interface RetryScheduledEvent extends FailedStepEvent {
  maxAttempts: number;
  delayMs: number;
}

export type DeadLetteredEvent = FailedStepEvent;

/**
 * A job is done: `delivered` (every destination has the answer; also a `deliver: none` route's job, whose agent
 * acted through its tools, with no destinations), `silent` (the agent answered the silent marker or nothing) or
 * `skipped` (a spent budget with `when_exceeded: skip`; the agent never ran).
 */
export interface CompletedEvent extends JobEvent {
  outcome: JobOutcome;
  /** The destinations that have the answer (none for `deliver: none`, silent and skipped jobs). */
  destinations: string[];
  /** Why a silent or skipped job ended so, as stored on the job. */
  note?: string;
}

/** A budget refused an agent run: the job waits until `until` (`wait`) or ends as skipped (`skip`). */
export interface BudgetExceededEvent extends JobEvent {
  /** The route's `budget:` or the global `agent.budget`. */
  scope: 'route' | 'global';
  budget: 'runs_per_hour' | 'tokens_per_day' | 'usd_per_day' | 'tokens_per_run' | 'usd_per_run';
  limit: number;
  action: 'wait' | 'skip';
  /** Epoch ms at which the spent window ends. */
  until: number;
  note: string;
}

/** A route's approval holds the answer (jobs/approval-gate.ts): the draft went to `via` (or the dashboard only). */
export interface ApprovalRequestedEvent extends JobEvent {
  approvers: string[];
  /** Epoch ms at which an unanswered draft ends as expired. */
  expiresAt: number;
  via?: string;
}

/** An allowed approver answered (a chat button or the dashboard); `by` is e.g. "telegram:12345 (alice)". */
export interface ApprovalDecidedEvent {
  jobId: string;
  route: string;
  deliveryId: string;
  by: string;
}

/**
 * A reply to one of a route's delivered answers became the conversation's next turn (ingest/conversation-step.ts):
 * a job on the conversation's route (`route`), whichever route the reply arrived on (`inboundRoute`).
 */
export interface ConversationContinuedEvent {
  jobId: string;
  route: string;
  inboundRoute: string;
  deliveryId: string;
  conversation: string;
  /** The answer the new job will be (2 for the first reply). */
  turn: number;
  platform: string;
  /** Who replied, e.g. "Telegram user 42 (Alice)". */
  from: string;
}

/**
 * One attempt to post an event to an MCP Events webhook subscriber (mcp-events/webhook-deliveries.ts): delivered,
 * retrying (it failed and waits for its next attempt) or failed (given up on, or refused for good).
 */
export interface McpWebhookDeliveryEvent {
  subscription: string;
  client: string;
  /** The event type, e.g. `prs` or `prs/pull_request`. */
  name: string;
  /** The message's `webhook-id`, the same on each of its attempts. */
  webhookId: string;
  outcome: 'delivered' | 'retrying' | 'failed';
  attempts: number;
  durationMs: number;
  error?: string;
}

export interface LifecycleEvents {
  accepted: AcceptedEvent;
  rejected: RejectedEvent;
  duplicate: DuplicateEvent;
  ignored: IgnoredEvent;
  agent_started: AgentStartedEvent;
  agent_finished: AgentFinishedEvent;
  delivered: DeliveredEvent;
  retry_scheduled: RetryScheduledEvent;
  dead_lettered: DeadLetteredEvent;
  completed: CompletedEvent;
  budget_exceeded: BudgetExceededEvent;
  approval_requested: ApprovalRequestedEvent;
  approved: ApprovalDecidedEvent;
  denied: ApprovalDecidedEvent;
  conversation_continued: ConversationContinuedEvent;
  mcp_webhook_delivery: McpWebhookDeliveryEvent;
}

export type { LifecycleEventName };

// Each name has its event and each event its name: a mismatch fails to compile here.
type NamesMatch = [keyof LifecycleEvents] extends [LifecycleEventName] ? ([LifecycleEventName] extends [keyof LifecycleEvents] ? true : never) : never;
const namesMatch: NamesMatch = true;
void namesMatch;
export type LifecycleListener<K extends LifecycleEventName> = (event: LifecycleEvents[K]) => void;

/** Every event, in the order people read them (the names live with the config that chooses them: `notify:`). */
export const LIFECYCLE_EVENTS: readonly LifecycleEventName[] = LIFECYCLE_EVENT_NAMES;

type ListenerLists = { [K in LifecycleEventName]: ReadonlyArray<LifecycleListener<K>> };

const NONE: readonly never[] = Object.freeze([]);

/**
 * Typed, synchronous emitter. Emitters call `has(name)` before they build an event object, so an event nobody
 * listens to costs one property read. Lists are replaced, never mutated, so a listener that unsubscribes while
 * an event is delivered does not disturb that delivery. A listener that throws is reported through `onError`
 * and never reaches the pipeline or the worker.
 */
export class Lifecycle {
  private lists: ListenerLists = {
    accepted: NONE,
    rejected: NONE,
    duplicate: NONE,
    ignored: NONE,
    agent_started: NONE,
    agent_finished: NONE,
    delivered: NONE,
    retry_scheduled: NONE,
    dead_lettered: NONE,
    completed: NONE,
    budget_exceeded: NONE,
    approval_requested: NONE,
    approved: NONE,
    denied: NONE,
    conversation_continued: NONE,
    mcp_webhook_delivery: NONE,
  };
  /**
   * Listeners of all events together. has() reads it first: with nobody listening at all (the default) the check
   * is one field load, where looking the list up by name is a keyed load that call sites with many names make slow.
   */
  private total = 0;

  constructor(private readonly onError: (name: LifecycleEventName, err: unknown) => void = () => undefined) {}

  /** Adds a listener; returns the function that removes it again. */
  on<K extends LifecycleEventName>(name: K, listener: LifecycleListener<K>): () => void {
    if (!LIFECYCLE_EVENTS.includes(name)) throw new TypeError(`unknown lifecycle event '${String(name)}'; known: ${LIFECYCLE_EVENTS.join(', ')}`);
    this.lists = { ...this.lists, [name]: [...this.lists[name], listener] };
    this.total += 1;
    return () => this.off(name, listener);
  }

  off<K extends LifecycleEventName>(name: K, listener: LifecycleListener<K>): void {
    const list = this.lists[name] as ReadonlyArray<LifecycleListener<K>>;
    const index = list.indexOf(listener);
    if (index === -1) return;
    this.lists = { ...this.lists, [name]: list.length === 1 ? NONE : [...list.slice(0, index), ...list.slice(index + 1)] };
    this.total -= 1;
  }

  /** Whether anyone listens: check it before building the event. */
  has(name: LifecycleEventName): boolean {
    return this.total !== 0 && this.lists[name].length !== 0;
  }

  listenerCount(name: LifecycleEventName): number {
    return this.lists[name].length;
  }

  emit<K extends LifecycleEventName>(name: K, event: LifecycleEvents[K]): void {
    const list = this.lists[name] as ReadonlyArray<LifecycleListener<K>>;
    for (const listener of list) {
      try {
        listener(event);
      } catch (err) {
        try {
          this.onError(name, err);
        } catch {
          /* a failing error reporter must not reach the caller either */
        }
      }
    }
  }
}

/** Reports listener errors to a logger at most once a minute per event name, so a broken listener cannot flood the log. */
export function throttledListenerErrors(warn: (message: string) => void, now: () => number = Date.now): (name: LifecycleEventName, err: unknown) => void {
  const last = new Map<LifecycleEventName, number>();
  return (name, err) => {
    const at = now();
    const before = last.get(name);
    if (before !== undefined && at - before < 60_000) return;
    last.set(name, at);
    warn(
      `a '${name}' lifecycle listener failed (the event was still handled; repeats are logged once a minute): ${err instanceof Error ? err.message : String(err)}`,
    );
  };
}
