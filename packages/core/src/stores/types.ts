// Store interfaces the pipeline and the workers depend on; backends are `store` plugins (memory, sqlite, redis, yours).
import type { AgentUsage } from '../contracts';
import type { MemoKV, Outbox, ProgressKV } from './side-spaces';

/** How long a delivery id is remembered per route (SPEC: 1 hour). */
export const DELIVERY_ID_TTL_MS = 60 * 60 * 1000;
/** The rate limit's fixed window. */
export const RATE_WINDOW_MS = 60 * 1000;

/** The `store:` block of config.yaml: the backend's id plus its own options (validated by its optionsSchema). */
export interface StoreConfig {
  backend: string;
  max_pending: number;
  lease_seconds?: number;
  /** How long finished work is kept (see {@link DEFAULT_JOBS_RETENTION_DAYS}); handed to every backend's create. */
  retention?: { jobs_days?: number };
  [option: string]: unknown;
}

/**
 * `store.retention.jobs_days` unset: done jobs (payload, prompt, answer, usage) are kept this many days after they
 * finished, then deleted. Dead letters and waiting jobs are never deleted by age.
 */
export const DEFAULT_JOBS_RETENTION_DAYS = 7;

/** Remembers delivery ids per route so that a repeated delivery runs once. */
export interface DeliveryIdCache {
  /** True when the id was not seen on this route within the TTL (and is now remembered). */
  claim(route: string, deliveryId: string): Promise<boolean>;
  /** Forgets an id again, e.g. when the event could not be enqueued and the sender will retry. */
  release(route: string, deliveryId: string): Promise<void>;
}

export interface RateWindow {
  /** Whether a new request may pass (the window is not full). */
  allowed: boolean;
  /** Seconds until the current window ends. */
  retryAfterSeconds: number;
}

/** Fixed-window limiter: `check` peeks without counting, `hit` counts an authenticated request. */
export interface RateLimiter {
  check(route: string, limit: number): Promise<RateWindow>;
  hit(route: string, limit: number): Promise<RateWindow>;
}

export type JobStatus = 'pending' | 'running' | 'done' | 'dead';
/**
 * How a done job ended: its answer was delivered (the default, also for jobs stored before outcomes existed), the
 * agent answered the silent marker or nothing (`silent`: nothing delivered), or the route's budget was spent and
 * the route skips rather than waits (`skipped`: the agent never ran), or a route's approval was denied or ran out
 * (`denied`, `expired`: the answer was kept and never delivered), or the run reached a spend cap of its budget
 * and the model proxy refused its further model calls (`budget_exceeded`: not retried, nothing delivered).
 */
export type JobOutcome = 'delivered' | 'silent' | 'skipped' | 'denied' | 'expired' | 'budget_exceeded';
/** A job coalesces at most this many events; the next one with the same key starts a new job. */
export const COALESCE_MAX_EVENTS = 100;
export type JobStep = 'agent' | 'deliver';

/**
 * What a job needs of its route to run, without its secrets: stored with the job when it is accepted, so that a
 * job whose route was removed (a subscription deleted, a static route taken out of config.yaml) still runs as
 * it was accepted. The worker uses the route's current definition while the route exists.
 */
export interface JobRoute {
  origin: 'static' | 'subscription';
  prompt?: string;
  skills: string[];
  /** The destinations' names joined with ',' (one name for a single destination), for people and logs. */
  deliver: string;
  /** The route-wide deliver_extra (with a single destination, that destination's). */
  deliverExtra: Record<string, string>;
  /**
   * Every destination with its own deliver_extra (the route-wide one with the destination's `extra` over it);
   * absent in jobs stored by older versions, which had one destination: `deliver` with `deliverExtra`.
   */
  destinations?: RouteDestination[];
  /** The route's own `agent:` block; absent when it uses the global one. */
  agent?: { runner?: string; [key: string]: unknown };
  /** The route's `budget:`, checked before each agent run (the global `agent.budget` is checked as well). */
  budget?: RouteBudget;
  /** The answer meaning "nothing worth saying" (`silent_marker:`; unset: the global one, `[SILENT]` by default). */
  silentMarker?: string;
  /** `deliver_only: true`: no agent run; the rendered prompt is the answer, delivered at once. */
  deliverOnly?: boolean;
}

/** Spend limits of a route's (or all routes') agent runs; over one, the job waits for the next window or is skipped. */
export interface RouteBudget {
  runsPerHour?: number;
  tokensPerDay?: number;
  /** US dollars per UTC day, as the gateway's model proxy prices the runs' model calls. */
  usdPerDay?: number;
  /** Tokens one run may use; checked by the model proxy before each model call of the run. */
  tokensPerRun?: number;
  /** US dollars one run may spend; checked by the model proxy before each model call of the run. */
  usdPerRun?: number;
  /** A key template (`{sender.login}`): each rendered key gets windows of its own (runs, tokens, dollars). */
  per?: string;
  whenExceeded: 'wait' | 'skip';
}

/** One place a route's answers go: a deliverer id (or alias) and its rendered-later deliver_extra templates. */
export interface RouteDestination {
  to: string;
  /** Set when `to` appears twice in one route: `<to>#2`, ... (the state and receipt are kept under it). */
  name?: string;
  extra: Record<string, string>;
}

/**
 * The delivery step of one destination of a job: each destination has its own attempts, errors and receipt,
 * so one destination failing never makes the worker post again to another that already has the answer.
 */
export interface DestinationState {
  /** The destination as the route names it (unique within the route). */
  destination: string;
  status: 'pending' | 'delivered' | 'dead';
  /** Delivery attempts made to this destination (counted afresh when a dead letter is retried). */
  attempts: number;
  /** The deliverer's receipt, once delivered. */
  receipt?: unknown;
  deliveredAt?: number;
  errors: JobError[];
}

export interface JobInput {
  route: string;
  event: string;
  deliveryId: string;
  payload: unknown;
  receivedAt: number;
  /** The route definition the job was accepted under (absent in jobs stored by older versions). */
  routeDefinition?: JobRoute;
  /**
   * Coalescing (the route's `coalesce:`): while a pending job of the same route with the same key has not been
   * leased yet and holds fewer than COALESCE_MAX_EVENTS events, `enqueue` merges this event into it instead of
   * adding a job (`mode: latest` replaces its payload and event with this one's; `all` does that and also appends
   * the payload to `coalesced.payloads`; both append the delivery id to `coalesced.deliveryIds`, the job keeps
   * its first delivery id and id) and returns that job. A new coalescing job is due
   * `windowMs` after its first event (`runAt = receivedAt + windowMs`): the window is counted from the first
   * event and never extended, so a stream of events cannot postpone the run for ever.
   */
  coalesce?: { key: string; windowMs: number; mode: 'latest' | 'all' };
  /**
   * Per-key serial execution (`concurrency_key:`, or the coalesce key): `lease` never hands out a job while
   * another job with the same route and key is running under a live lease; it stays pending (in order) until
   * that one ends.
   */
  concurrencyKey?: string;
}

/** The events a coalesced job stands for, in arrival order (set on every job enqueued with `coalesce`). */
export interface CoalescedEvents {
  /** The delivery ids merged into the job, the first event's first; `findByDeliveryId` finds the job by any of them. */
  deliveryIds: string[];
  /** Every event's payload in arrival order (`mode: all` only; `latest` keeps just the job's `payload`). */
  payloads?: unknown[];
}

export interface JobError {
  at: number;
  step: JobStep;
  attempt: number;
  /** The destination a delivery error belongs to (routes delivering to several). */
  destination?: string;
  message: string;
  retryable: boolean;
}

export interface Job extends JobInput {
  id: string;
  status: JobStatus;
  /** Attempts of the current step (the agent step, then the delivery step, each counted from 1). */
  attempts: number;
  step: JobStep;
  prompt?: string;
  /** The agent's answer, stored before delivery so that a delivery retry never re-runs the agent. */
  answer?: string;
  /** Tokens the agent run used, when its runner reports them (stored by `saveAnswer`). */
  usage?: AgentUsage;
  /** How a done job ended (`complete`); absent means delivered. */
  outcome?: JobOutcome;
  /**
   * Why the job waits or was skipped, for people (`release` with a hold, `complete` with an ending): e.g.
   * "route budget runs_per_hour (20) spent; waiting until 14:00:00Z". Cleared when the job is leased again.
   */
  note?: string;
  /** The route's coalesce key and concurrency key, as rendered when the job was accepted. */
  coalesceKey?: string;
  concurrencyKey?: string;
  /** Set on jobs enqueued with `coalesce`: the events they stand for. */
  coalesced?: CoalescedEvents;
  receipt?: unknown;
  /** Per-destination delivery state, once the delivery step has begun (set by `saveDestinations`). */
  destinations?: DestinationState[];
  errors: JobError[];
  /** Epoch ms before which a pending job is not leased. */
  runAt: number;
  createdAt: number;
  updatedAt: number;
  finishedAt?: number;
}

/**
 * A job as a list row sees it: no payload, prompt or answer, and of `coalesced` only the delivery ids (its payloads
 * are what make a coalesced job big). A Job is a JobSummary, so code that draws rows takes either.
 */
export type JobSummary = Omit<Job, 'payload' | 'prompt' | 'answer' | 'coalesced'> & {
  coalesced?: Pick<CoalescedEvents, 'deliveryIds'>;
  /** Whether the job has an answer stored (an agent run finished), which the answer's absence no longer tells. */
  answered?: boolean;
};

export interface JobFilter {
  status?: JobStatus;
  route?: string;
  limit?: number;
}

/** What the pipeline already knows about a job, so that a store need not work it out again. */
export interface EnqueueHints {
  /** The payload's JSON text as received: `JSON.parse(payloadJson)` equals `input.payload`. */
  payloadJson?: string;
  /** `JSON.stringify(input.routeDefinition)`, made once per route instead of once per job. */
  routeDefinitionJson?: string;
}

export interface JobQueue {
  enqueue(input: JobInput, hints?: EnqueueHints): Promise<Job>;
  /** Takes the next due pending job (or one whose lease expired) for `leaseMs`; undefined when none. */
  lease(owner: string, leaseMs: number): Promise<Job | undefined>;
  /** Extends a running job's lease; false when the lease was lost. */
  renew(jobId: string, owner: string, leaseMs: number): Promise<boolean>;
  /**
   * Stores the prompt and the agent's answer and moves the job to its delivery step with `attempts = 1`
   * (the first delivery attempt runs at once under the same lease; each later lease adds one).
   */
  saveAnswer(jobId: string, prompt: string, answer: string, usage?: AgentUsage): Promise<void>;
  /**
   * Stores the per-destination delivery state of a job (the whole list, replacing the previous one), written
   * after every destination's attempt so that a restart or a retry never delivers again to a destination whose
   * receipt is stored. Kept through complete, fail, release and retryDead.
   */
  saveDestinations(jobId: string, destinations: DestinationState[]): Promise<void>;
  /** Marks a job done: delivered with `receipt`, or ended otherwise (`silent`, `skipped`) with a note for people. */
  complete(jobId: string, receipt: unknown, ending?: { outcome: JobOutcome; note?: string }): Promise<void>;
  /** Records a failed attempt: back to pending until `retryAt`, or a dead letter when `retryAt` is null. */
  fail(jobId: string, error: JobError, retryAt: number | null): Promise<void>;
  /**
   * Hands a leased job back untouched: pending again, attempt not counted. Without `hold` it is due at once
   * (graceful shutdown); with one it waits until `hold.runAt` with `hold.note` on the job (a spent budget).
   */
  release(jobId: string, hold?: { runAt: number; note: string }): Promise<void>;
  /** Puts a dead letter back in the queue: same step (a saved answer is kept), attempts counted afresh. False when the job is not dead. */
  retryDead(jobId: string): Promise<boolean>;
  /**
   * A pending job waiting for its `runAt` (a hold, a retry's backoff, a coalescing window) becomes due now: its
   * `runAt` becomes now (a job already due keeps its own), its note and attempts stay, and idle workers of this
   * process wake (`onReady`); other processes find it at their next poll. True when the job is pending (waiting or
   * already due); false when there is no such job or it is running, done or dead, which are left as they are.
   * For an approval decided while its job waits on a hold. Optional: without it the job runs at its
   * `runAt`.
   */
  makeDue?(jobId: string): Promise<boolean>;
  /** Jobs waiting or running. */
  pendingCount(): Promise<number>;
  get(id: string): Promise<Job | undefined>;
  findByDeliveryId(deliveryId: string): Promise<Job | undefined>;
  list(filter?: JobFilter): Promise<Job[]>;
  /**
   * Like `list`, without what only a job's own page shows (payloads, prompt, answer): what list views and usage
   * sums read, so that a page over large payloads reads none of them. Optional: without it callers use `list`.
   */
  listSummaries?(filter?: JobFilter): Promise<JobSummary[]>;
  /**
   * Deletes done jobs that finished before `finishedBefore` (epoch ms), with their payload, prompt, answer and
   * usage, and returns how many; with `dryRun` only counts them. Never deletes pending, running or dead jobs.
   * Optional (`hookwise store purge` needs it): stores also delete done jobs on their own after
   * `store.retention.jobs_days`.
   */
  purgeFinished?(finishedBefore: number, options?: { dryRun?: boolean }): Promise<number>;
  /** Calls back when a job may be ready, so idle workers wake without polling. Returns an unsubscribe. */
  onReady?(listener: () => void): () => void;
  close?(): Promise<void>;
}

/** What the pipeline asks a store once a request has passed verification and parsing (DESIGN 3, steps 3 and 6-8). */
export interface AcceptRequest {
  route: string;
  deliveryId: string;
  /**
   * The route's rate limit (requests per window). Only an accepted event is counted: a full window answers
   * rate_limited first, but duplicates, ignored events and refusals for backpressure use none of it, so a
   * replayed request cannot close the route for its real sender.
   */
  rateLimit: number;
  /** Above this many pending jobs the event is refused (backpressure) and its id not remembered. */
  maxPending: number;
  /** The job to enqueue; absent when the route's event filter ignores the event (its id is still remembered). */
  job?: JobInput;
  hints?: EnqueueHints;
}

/**
 * The answer to an AcceptRequest, in the order the checks run: rate limit (the window is full), duplicate,
 * filter, backpressure; then the hit is counted with the enqueue (a window that filled meanwhile answers
 * rate_limited, and the id is not remembered).
 */
export type AcceptOutcome =
  | { outcome: 'rate_limited'; retryAfterSeconds: number }
  | { outcome: 'duplicate' }
  | { outcome: 'ignored' }
  | { outcome: 'backpressure' }
  | { outcome: 'accepted'; jobId: string; coalesced?: boolean };

/** What `/health` reports of a store: answered from what the store already knows, never by a query. */
export interface StoreHealth {
  ok: boolean;
  /** Why the store is failing, for people (no secrets): e.g. "the SQLite file is locked by another process". */
  reason?: string;
}

/**
 * Fixed-window counters for budgets (agent runs per hour, tokens per day), shared by every gateway on the store.
 * A window starts at a multiple of its length since the epoch (hours and UTC days for the budgets).
 */
export interface WindowCounters {
  /** Adds `amount` (0 peeks) to `key` in the current window of `windowMs` and returns the window's total after it. */
  add(key: string, amount: number, windowMs: number): Promise<number>;
}

export interface Store {
  deliveryIds: DeliveryIdCache;
  rateLimiter: RateLimiter;
  jobs: JobQueue;
  /**
   * Optional: counts the hit, claims the id and enqueues the job as one atomic step (one transaction), so a
   * crash never leaves a claimed id without its job. Stores without it get `acceptSequentially`, which makes
   * the same decisions with the three interfaces above and gives the claim back when the enqueue fails.
   */
  accept?(request: AcceptRequest): Promise<AcceptOutcome>;
  /**
   * Optional: delivery progress that survives restarts (memory, SQLite and Redis have it). Without it the
   * gateway keeps progress in memory, so a restart mid-answer may send parts again.
   */
  progress?: ProgressKV;
  /**
   * Optional: budget counters that survive restarts and are shared across gateways (memory, SQLite and Redis
   * have them). Without it the gateway counts in memory, per process.
   */
  counters?: WindowCounters;
  /**
   * Optional: plugins' memory across jobs (memory, SQLite and Redis have it), handed to plugins as
   * `PluginContext.memos`. Without it the gateway keeps memos in memory, per process.
   */
  memos?: MemoKV;
  /**
   * Optional: messages to other systems kept until they are sent (memory, SQLite and Redis have it). Without it
   * the gateway keeps them in memory, per process, so a stop or crash loses those not sent yet.
   */
  outbox?: Outbox;
  /** Optional: whether the store works, from memory (the last operations' outcome); must never block or throw. */
  health?(): StoreHealth;
  close(): Promise<void>;
}
