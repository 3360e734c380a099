// The memory store's job queue: the queued jobs by id and status, leases, dead letters. Its parts: how a job is
// held and copied (memory-job-payload), lease order (memory-waiting-jobs), coalescing, concurrency keys.
import { EventEmitter } from 'node:events';
import {
  type AgentUsage,
  type DestinationState,
  type EnqueueHints,
  type Job,
  type JobError,
  type JobFilter,
  type JobSummary,
  type JobInput,
  type JobOutcome,
  type JobQueue,
} from '@hookwise/core';
import { ConcurrencyKeys } from './memory-concurrency-keys';
import { CoalescingJobs } from './memory-coalescing';
import { jobIdSequence } from './memory-job-keys';
import { summaryOf } from './job-summaries';
import { keep, pendingJob, snapshot } from './memory-job-payload';
import { JobsByDeliveryId } from './memory-jobs-by-delivery-id';
import { WaitingJobs } from './memory-waiting-jobs';

/** The longest delay setTimeout honours (2^31-1 ms); a longer one fires after 1 ms. */
const MAX_TIMER_MS = 0x7fffffff;

interface Lease {
  owner: string;
  until: number;
}

/** How many finished (done) jobs the memory queue keeps for get()/list(); dead letters are always kept. */
export const MEMORY_DONE_JOBS_KEPT = 1_000;

export class MemoryJobQueue implements JobQueue {
  // The queued jobs; a job's `payload` may be a JsonText (see snapshot()). Never handed out: callers get snapshots.
  private readonly jobs = new Map<string, Job>();
  // Indexes by status, so that lease() and pendingCount() never walk finished jobs: under a flood the
  // queue would otherwise get slower (and bigger) with every accepted event.
  private readonly waiting = new WaitingJobs();
  private readonly running = new Set<string>();
  private readonly done = new Set<string>();
  private readonly leases = new Map<string, Lease>();
  private readonly byDeliveryId = new JobsByDeliveryId();
  private readonly coalescing = new CoalescingJobs(this.byDeliveryId);
  private readonly events = new EventEmitter();
  private readonly keys = new ConcurrencyKeys(this.leases, this.waiting, () => this.events.emit('ready'));
  private readonly nextJobId = jobIdSequence();
  private timer?: NodeJS.Timeout;

  /** Jobs stored by the accept but not yet leasable (`enqueueNow` with `announce` false). */
  private unannounced: Job[] = [];

  constructor(
    private readonly now: () => number = Date.now,
    private readonly doneKept = MEMORY_DONE_JOBS_KEPT,
  ) {
    this.events.setMaxListeners(0);
  }

  /**
   * Moves a job to a status and keeps the indexes in step; old done jobs beyond the bound are forgotten. A job
   * made pending goes to the end of the waiting order; `dueNow` tells whether its `runAt` has already come.
   */
  private setStatus(job: Job, status: Job['status'], dueNow = true): void {
    this.waiting.delete(job.id);
    if (this.running.delete(job.id)) this.keys.leftRunning(job);
    this.done.delete(job.id);
    job.status = status;
    if (status === 'pending') this.waiting.add(job, dueNow);
    else if (status === 'running') {
      this.running.add(job.id);
      this.keys.startedRunning(job);
    } else if (status === 'done') {
      this.done.add(job.id);
      if (this.done.size > this.doneKept) this.forgetOldestDone();
    }
  }

  private forgetOldestDone(): void {
    this.forgetDone(this.done.values().next().value as string);
  }

  private forgetDone(id: string): void {
    this.done.delete(id);
    this.byDeliveryId.remove(this.mustGet(id));
    this.jobs.delete(id);
  }

  /** Done jobs finished before `finishedBefore` are forgotten (or only counted); others are never touched. */
  async purgeFinished(finishedBefore: number, options: { dryRun?: boolean } = {}): Promise<number> {
    const old = [...this.done].filter((id) => (this.mustGet(id).finishedAt ?? 0) < finishedBefore);
    if (!options.dryRun) for (const id of old) this.forgetDone(id);
    return old.length;
  }

  async enqueue(input: JobInput, hints: EnqueueHints = {}): Promise<Job> {
    const { job, merged } = this.enqueueNow(input, hints);
    if (merged || job.coalesced) return snapshot(job);
    // The payload is the caller's own object: deep-copying it per request would cost more than the rest.
    const answer = pendingJob(job.id, input, input.payload, job.createdAt);
    if (job.concurrencyKey !== undefined) answer.concurrencyKey = job.concurrencyKey;
    return answer;
  }

  /**
   * `enqueue` without a promise or a copy for the caller, for the memory store's own accept: the queued job (not
   * to be handed out) and whether the event joined a waiting job instead of making one (coalescing). With
   * `announce` false a new job is stored and counted but not leasable until `announceQueued()`: the accept
   * answers a turn's requests together, and a worker must not start a job before the gateway has answered (and
   * told its listeners, e.g. the receipt span an agent run's span belongs to) that it was accepted.
   */
  enqueueNow(input: JobInput, hints: EnqueueHints = {}, announce = true): { job: Job; merged: boolean } {
    const at = this.now();
    const kept = keep(input.payload, hints.payloadJson);
    const joined = input.coalesce && this.coalescing.join(input, input.coalesce.key, kept, at);
    if (joined) return { job: joined, merged: true };
    const id = this.nextJobId();
    const job = pendingJob(id, input, kept, at);
    // With its JSON text (made once per route, EnqueueHints) the definition is the caller's shared, unchanging
    // object and is kept as it is; without, it may be anyone's object and is copied like the payload.
    if (hints.routeDefinitionJson === undefined && input.routeDefinition) job.routeDefinition = structuredClone(input.routeDefinition);
    if (input.concurrencyKey !== undefined) job.concurrencyKey = input.concurrencyKey;
    let dueNow = true;
    if (input.coalesce) {
      this.coalescing.start(job, input, input.coalesce, kept);
      dueNow = job.runAt <= at;
    }
    this.jobs.set(id, job);
    this.byDeliveryId.add(input.deliveryId, job);
    if (!announce) {
      this.unannounced.push(job);
      return { job, merged: false };
    }
    this.waiting.add(job, dueNow);
    if (dueNow) this.events.emit('ready');
    else this.scheduleWake(at);
    return { job, merged: false };
  }

  /** Makes the jobs stored with `announce` false leasable, in their order, and wakes idle workers once. */
  announceQueued(): void {
    const jobs = this.unannounced;
    if (jobs.length === 0) return;
    this.unannounced = [];
    const at = this.now();
    let anyDue = false;
    for (const job of jobs) {
      const dueNow = job.runAt <= at;
      this.waiting.add(job, dueNow);
      anyDue ||= dueNow;
    }
    this.scheduleWake(at);
    if (anyDue) this.events.emit('ready');
  }

  async lease(owner: string, leaseMs: number): Promise<Job | undefined> {
    // Everything here is synchronous: without a turn of the event loop per job, workers with a fast agent
    // would drain a whole backlog in one go while HTTP requests wait (p99 of seconds in docs/performance.md).
    await new Promise<void>((resolve) => setImmediate(resolve));
    const now = this.now();
    const take = (job: Job): Job => {
      this.coalescing.leased(job);
      // A hold's note said why the job waited; it is running now.
      if (job.note !== undefined) delete job.note;
      this.setStatus(job, 'running');
      job.attempts += 1;
      job.updatedAt = now;
      this.leases.set(job.id, { owner, until: now + leaseMs });
      return snapshot(job);
    };
    const due = this.keys.firstLeasable(now);
    if (due) return take(due);
    for (const id of this.running) {
      const lease = this.leases.get(id);
      const job = this.jobs.get(id);
      if (!job || lease === undefined || lease.until > now) continue;
      if (this.keys.free(job, now)) return take(job);
    }
    this.scheduleWake(now);
    return undefined;
  }

  /** Wakes idle workers when the earliest delayed job (a retry, a hold, a coalescing window) becomes due. */
  private scheduleWake(now: number): void {
    const next = this.waiting.nextRunAfter(now);
    if (next === undefined) return;
    if (this.timer) clearTimeout(this.timer);
    // setTimeout waits at most 2^31-1 ms (about 24.8 days); a longer delay would fire at once, over and over.
    this.timer = setTimeout(() => this.events.emit('ready'), Math.min(MAX_TIMER_MS, Math.max(0, next - now)));
    this.timer.unref();
  }

  async renew(jobId: string, owner: string, leaseMs: number): Promise<boolean> {
    const lease = this.leases.get(jobId);
    if (!lease || lease.owner !== owner) return false;
    lease.until = this.now() + leaseMs;
    return true;
  }

  private mustGet(jobId: string): Job {
    const job = this.jobs.get(jobId);
    if (!job) throw new Error(`no job ${jobId}`);
    return job;
  }

  async saveAnswer(jobId: string, prompt: string, answer: string, usage?: AgentUsage): Promise<void> {
    const job = this.mustGet(jobId);
    // The delivery step's first attempt runs right away under the same lease, so it counts as attempt 1.
    Object.assign(job, { prompt, answer, step: 'deliver', attempts: 1, updatedAt: this.now() });
    if (usage) job.usage = { ...usage };
  }

  async saveDestinations(jobId: string, destinations: DestinationState[]): Promise<void> {
    const job = this.mustGet(jobId);
    // A copy: the worker keeps changing its own list.
    Object.assign(job, { destinations: structuredClone(destinations), updatedAt: this.now() });
  }

  async complete(jobId: string, receipt: unknown, ending?: { outcome: JobOutcome; note?: string }): Promise<void> {
    const job = this.mustGet(jobId);
    const at = this.now();
    Object.assign(job, { receipt, updatedAt: at, finishedAt: at });
    if (ending) {
      job.outcome = ending.outcome;
      if (ending.note !== undefined) job.note = ending.note;
    }
    this.leases.delete(jobId);
    this.setStatus(job, 'done');
  }

  async fail(jobId: string, error: JobError, retryAt: number | null): Promise<void> {
    const job = this.mustGet(jobId);
    const at = this.now();
    job.errors.push(error);
    job.updatedAt = at;
    this.leases.delete(jobId);
    if (retryAt === null) {
      this.setStatus(job, 'dead');
      job.finishedAt = at;
    } else {
      job.runAt = retryAt;
      this.setStatus(job, 'pending', retryAt <= at);
      this.scheduleWake(at);
    }
  }

  async release(jobId: string, hold?: { runAt: number; note: string }): Promise<void> {
    const job = this.mustGet(jobId);
    if (job.status !== 'running') return;
    const at = this.now();
    job.attempts = Math.max(0, job.attempts - 1);
    this.leases.delete(jobId);
    if (hold) {
      Object.assign(job, { runAt: hold.runAt, note: hold.note, updatedAt: at });
      this.setStatus(job, 'pending', hold.runAt <= at);
      this.scheduleWake(at);
    } else this.setStatus(job, 'pending');
    this.events.emit('ready');
  }

  async retryDead(jobId: string): Promise<boolean> {
    const job = this.jobs.get(jobId);
    if (!job || job.status !== 'dead') return false;
    Object.assign(job, { attempts: 0, runAt: this.now(), updatedAt: this.now(), finishedAt: undefined });
    this.setStatus(job, 'pending');
    this.events.emit('ready');
    return true;
  }

  /** A waiting job keeps its place in the waiting order (set when it was put back); only its time changes. */
  async makeDue(jobId: string): Promise<boolean> {
    const job = this.jobs.get(jobId);
    if (!job || job.status !== 'pending') return false;
    const at = this.now();
    if (job.runAt > at) {
      Object.assign(job, { runAt: at, updatedAt: at });
      // Not re-added (that would send it to the back of the waiting order): the heaps sort it again by its new time.
      this.waiting.rescheduled(job.id);
    }
    this.events.emit('ready');
    return true;
  }

  async pendingCount(): Promise<number> {
    return this.pendingNow;
  }

  /** Jobs waiting or running, without a promise. */
  get pendingNow(): number {
    return this.waiting.size + this.running.size + this.unannounced.length;
  }

  async get(id: string): Promise<Job | undefined> {
    const job = this.jobs.get(id);
    return job && snapshot(job);
  }

  async findByDeliveryId(deliveryId: string): Promise<Job | undefined> {
    const job = this.byDeliveryId.first(deliveryId);
    return job && snapshot(job);
  }

  async list(filter: JobFilter = {}): Promise<Job[]> {
    // Only the jobs returned are copied (and their payloads parsed).
    return this.matching(filter).map(snapshot);
  }

  /** As list, copying no payload, prompt or answer: a list page over large payloads parses none of them. */
  async listSummaries(filter: JobFilter = {}): Promise<JobSummary[]> {
    return this.matching(filter).map((job) => structuredClone(summaryOf(job)));
  }

  /** The queued jobs themselves (never handed out), newest first, filtered and limited. */
  private matching(filter: JobFilter): Job[] {
    const found: Job[] = [];
    for (const job of this.jobs.values()) {
      if (filter.status && job.status !== filter.status) continue;
      if (filter.route && job.route !== filter.route) continue;
      found.push(job);
    }
    // The map holds the jobs in the order they were made: reversed first, a stable sort keeps jobs made in one
    // millisecond newest first too.
    found.reverse().sort((a, b) => b.createdAt - a.createdAt);
    return filter.limit ? found.slice(0, filter.limit) : found;
  }

  onReady(listener: () => void): () => void {
    this.events.on('ready', listener);
    return () => this.events.off('ready', listener);
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
  }
}
