// What the dashboard knows beyond the store, kept in memory from the lifecycle events of this process: each recent
// job's request headers (secrets removed) and attempts with their timing, recent refused requests, and per-minute
// counts for the charts. Bounded; lost on restart (the store keeps the jobs themselves).
import type { JobStep } from '@hookwise/core';
import { keepableHeaders, shownHeaders } from './header-redaction';
import type { AgentUsage, Lifecycle, LifecycleEventName, LifecycleListener, RejectionReason } from './lifecycle';

export interface AttemptRecord {
  step: JobStep;
  attempt: number;
  /** Epoch ms. */
  startedAt: number;
  durationMs: number;
  outcome: 'ok' | 'error' | 'timeout';
  error?: string;
  runner?: string;
  destination?: string;
  usage?: AgentUsage;
  /** What followed a failure: a retry after this many ms, or the dead letter. */
  then?: { retryInMs: number } | { deadLetter: true };
}

export interface JobActivity {
  jobId: string;
  /** Absent for jobs accepted before this process started or by another gateway. */
  headers?: Array<[string, string]>;
  receivedAt?: number;
  attempts: AttemptRecord[];
}

export interface RequestActivity {
  at: number;
  route: string;
  outcome: 'rejected' | 'duplicate' | 'ignored';
  status: number;
  reason?: RejectionReason;
  source?: string;
  deliveryId?: string;
  event?: string;
}

export interface MinuteCounts {
  /** Epoch ms of the minute's start. */
  at: number;
  accepted: number;
  refused: number;
  delivered: number;
  failed: number;
  deadLettered: number;
  /** Jobs that ended silent (the agent answered the silent marker or nothing). */
  silent: number;
  /** Agent runs a budget refused (the job waits or is skipped). */
  budgetRefused: number;
  agentRuns: number;
  agentMsTotal: number;
  agentMsMax: number;
}

export interface ActivityJournalOptions {
  /** True for a header value that holds a known secret. */
  isSecret?: (value: string) => boolean;
  maxJobs?: number;
  maxRequests?: number;
  /** How many minutes of counts are kept. */
  minutes?: number;
  now?: () => number;
}

const MINUTE = 60_000;

export class ActivityJournal {
  private readonly jobs = new Map<string, JobActivity>();
  private readonly requests: RequestActivity[] = [];
  private readonly buckets = new Map<number, MinuteCounts>();
  private readonly stops: Array<() => void> = [];
  private readonly maxJobs: number;
  private readonly maxRequests: number;
  private readonly minutes: number;
  private readonly now: () => number;
  private readonly isSecret: (value: string) => boolean;

  constructor(lifecycle: Lifecycle, options: ActivityJournalOptions = {}) {
    this.maxJobs = options.maxJobs ?? 1000;
    this.maxRequests = options.maxRequests ?? 200;
    this.minutes = options.minutes ?? 60;
    this.now = options.now ?? Date.now;
    this.isSecret = options.isSecret ?? (() => false);
    const on = <K extends LifecycleEventName>(name: K, listener: LifecycleListener<K>) => this.stops.push(lifecycle.on(name, listener));
    on('accepted', (e) => {
      this.bucket().accepted += 1;
      const record = this.record(e.jobId);
      record.headers = keepableHeaders(e.headers);
      record.receivedAt = e.receivedAt;
    });
    on('rejected', (e) => {
      this.bucket().refused += 1;
      this.request({ at: e.receivedAt, route: e.route, outcome: 'rejected', status: e.status, reason: e.reason, source: e.source });
    });
    on('duplicate', (e) => this.request({ at: e.receivedAt, route: e.route, outcome: 'duplicate', status: 200, deliveryId: e.deliveryId, event: e.event }));
    on('ignored', (e) => this.request({ at: e.receivedAt, route: e.route, outcome: 'ignored', status: 200, deliveryId: e.deliveryId, event: e.event }));
    on('agent_finished', (e) => {
      const bucket = this.bucket();
      bucket.agentRuns += 1;
      bucket.agentMsTotal += e.durationMs;
      bucket.agentMsMax = Math.max(bucket.agentMsMax, e.durationMs);
      this.attempt(e.jobId, {
        step: 'agent',
        attempt: e.attempt,
        startedAt: this.now() - e.durationMs,
        durationMs: e.durationMs,
        outcome: e.outcome,
        error: e.error,
        runner: e.runner,
        usage: e.usage,
      });
    });
    on('delivered', (e) => {
      this.bucket().delivered += 1;
      this.attempt(e.jobId, {
        step: 'deliver',
        attempt: e.attempt,
        startedAt: this.now() - e.durationMs,
        durationMs: e.durationMs,
        outcome: 'ok',
        destination: e.destination,
      });
    });
    on('completed', (e) => {
      if (e.outcome === 'silent') this.bucket().silent += 1;
    });
    on('budget_exceeded', () => {
      this.bucket().budgetRefused += 1;
    });
    on('retry_scheduled', (e) => this.failed(e.jobId, e.step, e.attempt, e.durationMs, e.error, e.destination, { retryInMs: e.delayMs }));
    on('dead_lettered', (e) => {
      this.bucket().deadLettered += 1;
      this.failed(e.jobId, e.step, e.attempt, e.durationMs, e.error, e.destination, { deadLetter: true });
    });
  }

  /** What this process saw of a job, if it is still among the recent ones; headers as they may be shown. */
  job(jobId: string): JobActivity | undefined {
    const record = this.jobs.get(jobId);
    if (!record?.headers) return record;
    return { ...record, headers: shownHeaders(record.headers, this.isSecret) };
  }

  /** Refused, duplicate and ignored requests, newest first. */
  recentRequests(): RequestActivity[] {
    return [...this.requests].reverse();
  }

  /** Counts per minute for the last `minutes` minutes, oldest first, empty minutes included. */
  series(minutes = 30): MinuteCounts[] {
    const current = Math.floor(this.now() / MINUTE) * MINUTE;
    const out: MinuteCounts[] = [];
    for (let i = Math.min(minutes, this.minutes) - 1; i >= 0; i -= 1) {
      const at = current - i * MINUTE;
      out.push(this.buckets.get(at) ?? emptyMinute(at));
    }
    return out;
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop();
  }

  private record(jobId: string): JobActivity {
    let record = this.jobs.get(jobId);
    if (!record) {
      record = { jobId, attempts: [] };
      this.jobs.set(jobId, record);
      // Map keeps insertion order: the oldest job goes first.
      if (this.jobs.size > this.maxJobs) this.jobs.delete(this.jobs.keys().next().value as string);
    }
    return record;
  }

  private attempt(jobId: string, attempt: AttemptRecord): void {
    const attempts = this.record(jobId).attempts;
    attempts.push(attempt);
    // A job retried for hours must not grow without bound.
    if (attempts.length > 50) attempts.splice(0, attempts.length - 50);
  }

  /** A failed step: an agent attempt is already recorded by agent_finished, a delivery attempt is recorded here. */
  private failed(
    jobId: string,
    step: JobStep,
    attempt: number,
    durationMs: number,
    error: string,
    destination: string | undefined,
    then: AttemptRecord['then'],
  ): void {
    const record = this.record(jobId);
    const last = record.attempts.at(-1);
    if (step === 'agent' && last?.step === 'agent' && last.attempt === attempt) {
      last.then = then;
      return;
    }
    if (step === 'deliver') this.bucket().failed += 1;
    this.attempt(jobId, { step, attempt, startedAt: this.now() - durationMs, durationMs, outcome: 'error', error, destination, then });
  }

  private request(entry: RequestActivity): void {
    this.requests.push(entry);
    if (this.requests.length > this.maxRequests) this.requests.shift();
  }

  private bucket(): MinuteCounts {
    const at = Math.floor(this.now() / MINUTE) * MINUTE;
    let bucket = this.buckets.get(at);
    if (!bucket) {
      bucket = emptyMinute(at);
      this.buckets.set(at, bucket);
      for (const key of this.buckets.keys()) if (key <= at - this.minutes * MINUTE) this.buckets.delete(key);
    }
    return bucket;
  }
}

function emptyMinute(at: number): MinuteCounts {
  return { at, accepted: 0, refused: 0, delivered: 0, failed: 0, deadLettered: 0, silent: 0, budgetRefused: 0, agentRuns: 0, agentMsTotal: 0, agentMsMax: 0 };
}
