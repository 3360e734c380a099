// What the admin API and the dashboard read: deliveries from the store (filtered), the queue depth, the routes, and
// the activity journal's recent requests and per-minute counts. Store reads are bounded in time.
import type { AgentUsage, Job, JobFilter, JobOutcome, JobStatus, JobSummary, WindowCounters } from '@hookwise/core';
import { errorMessage } from '@hookwise/core';
import {
  budgetOf,
  eventAccepted,
  findJob,
  routeUsage,
  type ActivityJournal,
  type ConversationView,
  type Gateway,
  eventCount,
  jobOutcome,
  listJobSummaries,
  storedJobsSince,
  readSubscriptions,
  usageReport,
  type SubscriptionEntry,
  type UsageReport,
} from '@hookwise/gateway';

/** A subscription an agent run made, as the dashboard shows it (never its secret). */
export interface AgentSubscription {
  name: string;
  createdBy: NonNullable<SubscriptionEntry['created_by']>;
  prompt?: string;
  deliver: SubscriptionEntry['deliver'];
  deliverExtra: Record<string, string>;
  createdAt?: string;
}

export interface DeliveryFilters {
  status?: JobStatus;
  route?: string;
  event?: string;
  limit?: number;
}

export interface QueueDepth {
  pending?: number;
  running: number;
  dead?: number;
  /** Why the store could not say, when it could not. */
  problem?: string;
}

export interface DeliverySummary {
  id: string;
  deliveryId: string;
  route: string;
  event: string;
  status: JobStatus;
  step: string;
  attempts: number;
  receivedAt: number;
  updatedAt: number;
  finishedAt?: number;
  lastError?: string;
  /** A done job's outcome (delivered, silent, skipped). */
  outcome?: JobOutcome;
  /** Why it waits or was skipped. */
  note?: string;
  usage?: AgentUsage;
  /** Webhook events the job stands for (more than 1 when coalesced). */
  events: number;
}

const STATUSES = new Set<string>(['pending', 'running', 'done', 'dead']);
export const MAX_LIST_LIMIT = 500;
/** Dead letters are counted by listing them (JobQueue has no count by status), up to this many. */
export const DEAD_COUNT_LIMIT = 1000;
const STORE_READ_TIMEOUT_MS = 2000;

export function summary(job: JobSummary): DeliverySummary {
  return {
    id: job.id,
    deliveryId: job.deliveryId,
    route: job.route,
    event: job.event,
    status: job.status,
    step: job.step,
    attempts: job.attempts,
    receivedAt: job.receivedAt,
    updatedAt: job.updatedAt,
    finishedAt: job.finishedAt,
    lastError: job.errors.at(-1)?.message,
    outcome: jobOutcome(job),
    note: job.note,
    usage: job.usage,
    events: eventCount(job),
  };
}

/** Filters from a query string: unknown statuses and out-of-range limits are the caller's error. */
export function parseFilters(query: Record<string, unknown>): { filters: DeliveryFilters } | { problem: string } {
  const text = (key: string) => (typeof query[key] === 'string' && query[key] !== '' ? (query[key] as string) : undefined);
  const status = text('status');
  if (status !== undefined && !STATUSES.has(status)) return { problem: `status must be one of pending, running, done, dead (got '${status}')` };
  const limitText = text('limit');
  const limit = limitText === undefined ? 50 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) return { problem: `limit must be an integer from 1 to ${MAX_LIST_LIMIT}` };
  return { filters: { status: status as JobStatus | undefined, route: text('route'), event: text('event'), limit } };
}

function withTimeout<T>(promise: Promise<T>, ms = STORE_READ_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class AdminData {
  constructor(
    readonly gateway: Gateway,
    readonly journal: ActivityJournal | undefined,
  ) {}

  /**
   * Newest first, without payloads, prompts or answers: what list views draw (120 stored 1 MB payloads
   * took one dashboard view from 140 to 565 MB). Only an event's own page (find) reads its payload.
   */
  list(filters: DeliveryFilters): Promise<JobSummary[]> {
    return this.filtered(filters, (filter) => listJobSummaries(this.gateway.store.jobs, filter));
  }

  /** Whole jobs (payload, prompt, answer), for `GET /api/deliveries?full=1` (`hookwise deliveries list --json`). */
  listFull(filters: DeliveryFilters): Promise<Job[]> {
    return this.filtered(filters, (filter) => this.gateway.store.jobs.list(filter));
  }

  /** The store filters by status and route; the event filter (names compared as routes compare them) is applied here. */
  private async filtered<T extends JobSummary>(filters: DeliveryFilters, read: (filter: JobFilter) => Promise<T[]>): Promise<T[]> {
    const limit = filters.limit ?? 50;
    if (filters.event === undefined) return withTimeout(read({ status: filters.status, route: filters.route, limit }));
    const candidates = await withTimeout(read({ status: filters.status, route: filters.route, limit: Math.max(limit, 1000) }));
    const wanted = filters.event;
    return candidates.filter((job) => eventAccepted([wanted], job.event)).slice(0, limit);
  }

  async find(id: string): Promise<Job | undefined> {
    return withTimeout(findJob(this.gateway.store.jobs, id));
  }

  /** The conversation a job is part of; undefined for none, or when the store cannot say in time. */
  async conversation(job: Job): Promise<ConversationView | undefined> {
    return withTimeout(this.gateway.conversations.ofJob(job)).catch(() => undefined);
  }

  async queue(): Promise<QueueDepth> {
    const running = this.gateway.workers.inFlight;
    try {
      const { jobs } = this.gateway.store;
      const [open, dead] = await withTimeout(
        Promise.all([jobs.pendingCount(), listJobSummaries(jobs, { status: 'dead', limit: DEAD_COUNT_LIMIT }).then((list) => list.length)]),
      );
      return { pending: Math.max(0, open - running), running, dead };
    } catch (err) {
      return { running, problem: errorMessage(err) };
    }
  }

  /**
   * Per route: the budget counters (runs this hour, tokens today) beside its budget, and sums over the stored jobs
   * received since `since` (none with `stored: false`); the counters of all routes together (agent.budget) under `all`.
   */
  async usage(since: number, route?: string, options: { stored?: boolean } = {}): Promise<UsageReport> {
    const counters = this.counters();
    const stored = options.stored === false ? { jobs: [], complete: true } : await withTimeout(storedJobsSince(this.gateway.store.jobs, since, route));
    const routes = this.gateway.routes
      .all()
      .filter((r) => route === undefined || r.name === route)
      .map((r) => ({ name: r.name, budget: r.budget }));
    return usageReport({
      routes,
      ...stored,
      since,
      onlyRoute: route,
      globalBudget: budgetOf(this.gateway.config.agent.budget),
      live: counters ? (name) => withTimeout(routeUsage(counters, name)) : undefined,
    });
  }

  /** The counters the budgets count in: the store's (shared by every gateway on it), else this process's. */
  private counters(): WindowCounters | undefined {
    return this.gateway.store.counters;
  }

  /** The subscriptions agent runs made (entries with `created_by`), by name; an unreadable file: none. */
  agentSubscriptions(): AgentSubscription[] {
    let entries: ReturnType<typeof readSubscriptions>;
    try {
      entries = readSubscriptions(this.gateway.options.configDir);
    } catch {
      return [];
    }
    return Object.entries(entries)
      .filter(([, entry]) => entry && typeof entry === 'object' && entry.created_by)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, entry]) => ({
        name,
        createdBy: entry.created_by!,
        prompt: entry.prompt,
        deliver: entry.deliver,
        deliverExtra: entry.deliver_extra ?? {},
        createdAt: entry.created_at,
      }));
  }

  routes(): string[] {
    return this.gateway.routes
      .all()
      .map((route) => route.name)
      .sort();
  }
}
