// The memory store's job queue: waiting jobs in two heaps (due time, waiting order), leases, dead letters.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { type DestinationState, type EnqueueHints, type Job, type JobError, type JobFilter, type JobInput, type JobQueue } from '@hookwise/core';

interface Lease {
  owner: string;
  until: number;
}

/** How many finished (done) jobs the memory queue keeps for get()/list(); dead letters are always kept. */
export const MEMORY_DONE_JOBS_KEPT = 1_000;

/**
 * A payload kept as the JSON text it was parsed from (`EnqueueHints.payloadJson`): one flat string, smaller than
 * the parsed object (about 0.8× for a 1 KB pull-request payload) and, unlike the object's many small parts, nothing
 * for the garbage collector to copy or trace while the job waits. Parsed again when the job is handed out.
 */
class JsonText {
  constructor(readonly text: string) {}
}

/**
 * The job fields in one fixed order, so that every queued job shares one object shape (`{ ...input, … }` gave
 * each job a hidden class and a property array of its own, about 0.5 KB).
 */
function pendingJob(id: string, input: JobInput, payload: unknown, at: number): Job {
  const { route, event, deliveryId, receivedAt, routeDefinition } = input;
  return {
    route,
    event,
    deliveryId,
    payload,
    receivedAt,
    routeDefinition,
    id,
    status: 'pending',
    attempts: 0,
    step: 'agent',
    errors: [],
    runAt: at,
    createdAt: at,
    updatedAt: at,
  };
}

/** A caller's copy of a queued job: nothing it changes reaches the queue, and the payload is an object again. */
function snapshot(stored: Job): Job {
  const kept = stored.payload;
  if (!(kept instanceof JsonText)) return structuredClone(stored);
  const job = structuredClone({ ...stored, payload: undefined }) as Job;
  job.payload = JSON.parse(kept.text);
  return job;
}

/**
 * Job ids: UUID-shaped, a random prefix per queue and a counter; they only need to be unique within the queue.
 * A `randomUUID()` per job cost about 2 µs more and stayed a tree of 14 concatenated strings (about 450 B per job).
 */
function jobIdSequence(): () => string {
  const prefix = randomUUID().slice(0, 24);
  let count = 0;
  return () => {
    count += 1;
    return prefix + count.toString(16).padStart(12, '0');
  };
}

/** A pending job's place in the waiting order: `seq` counts up each time a job starts (or starts again) to wait. */
interface WaitingEntry {
  job: Job;
  seq: number;
  /** Where the entry sits in its heap's array, so that a job leaving the queue early is removed in O(log n). */
  slot: number;
}

/** A binary min-heap of waiting entries; `before(a, b)` is true when `a` must come out first. */
class EntryHeap {
  private readonly entries: WaitingEntry[] = [];

  constructor(private readonly before: (a: WaitingEntry, b: WaitingEntry) => boolean) {}

  get size(): number {
    return this.entries.length;
  }

  peek(): WaitingEntry | undefined {
    return this.entries[0];
  }

  push(entry: WaitingEntry): void {
    this.place(entry, this.entries.length);
    this.siftUp(entry);
  }

  pop(): WaitingEntry | undefined {
    const top = this.entries[0];
    if (top) this.remove(top);
    return top;
  }

  /** Takes the entry out wherever it sits; false when it is not in this heap. */
  remove(entry: WaitingEntry): boolean {
    if (this.entries[entry.slot] !== entry) return false;
    const last = this.entries.pop() as WaitingEntry;
    if (last !== entry) {
      this.place(last, entry.slot);
      this.siftUp(last);
      this.siftDown(last);
    }
    return true;
  }

  private place(entry: WaitingEntry, slot: number): void {
    this.entries[slot] = entry;
    entry.slot = slot;
  }

  private siftUp(entry: WaitingEntry): void {
    while (entry.slot > 0) {
      const parent = this.entries[(entry.slot - 1) >> 1] as WaitingEntry;
      if (!this.before(entry, parent)) return;
      this.swap(entry, parent);
    }
  }

  private siftDown(entry: WaitingEntry): void {
    for (;;) {
      const child = this.firstChild(entry.slot);
      if (!child || !this.before(child, entry)) return;
      this.swap(entry, child);
    }
  }

  /** The child of `slot` that comes out first, if any. */
  private firstChild(slot: number): WaitingEntry | undefined {
    const left = this.entries[2 * slot + 1];
    const right = this.entries[2 * slot + 2];
    return left && right && this.before(right, left) ? right : left;
  }

  private swap(a: WaitingEntry, b: WaitingEntry): void {
    const slotOfA = a.slot;
    this.place(a, b.slot);
    this.place(b, slotOfA);
  }
}

const waitedLonger = (a: WaitingEntry, b: WaitingEntry): boolean => a.seq < b.seq;
const dueSooner = (a: WaitingEntry, b: WaitingEntry): boolean => a.job.runAt < b.job.runAt || (a.job.runAt === b.job.runAt && a.seq < b.seq);

/**
 * The pending jobs. `lease()` takes, among the jobs due (`runAt <= now`), the one that started waiting first; a
 * retry that started waiting before a newer job goes first once both are due, whatever their retry times.
 * Two heaps keep that cheap with many delayed retries: `delayed` by retry time, and `due` by waiting order, which
 * the delayed jobs join as their time comes. Neither a lease nor the next wake-up time walks the waiting jobs.
 */
class WaitingJobs {
  private readonly entries = new Map<string, WaitingEntry>();
  private readonly due = new EntryHeap(waitedLonger);
  private readonly delayed = new EntryHeap(dueSooner);
  private nextSeq = 0;
  // The latest retry time in `due`: a clock that went back before it (a test clock, an NTP step) may have made
  // jobs there not due any more, and they go back to `delayed`.
  private latestDueRunAt = -Infinity;

  get size(): number {
    return this.entries.size;
  }

  /** Adds a job at the end of the waiting order; `dueNow` only picks its first heap (a wrong guess is corrected). */
  add(job: Job, dueNow: boolean): void {
    this.delete(job.id);
    const entry: WaitingEntry = { job, seq: this.nextSeq++, slot: 0 };
    this.entries.set(job.id, entry);
    if (dueNow) this.pushDue(entry);
    else this.delayed.push(entry);
  }

  delete(jobId: string): void {
    const entry = this.entries.get(jobId);
    if (!entry) return;
    this.entries.delete(jobId);
    if (!this.due.remove(entry)) this.delayed.remove(entry);
  }

  /** The job lease() takes at `now`: the first to have started waiting among those due. */
  firstDue(now: number): Job | undefined {
    this.sortByDueness(now);
    return this.due.peek()?.job;
  }

  /** The earliest retry time after `now`, if a job waits for one. */
  nextRunAfter(now: number): number | undefined {
    this.sortByDueness(now);
    return this.delayed.peek()?.job.runAt;
  }

  /** Leaves exactly the jobs with `runAt <= now` in `due`. */
  private sortByDueness(now: number): void {
    if (this.latestDueRunAt > now) this.delayAllDue();
    for (let next = this.delayed.peek(); next && next.job.runAt <= now; next = this.delayed.peek()) {
      this.delayed.remove(next);
      this.pushDue(next);
    }
  }

  private pushDue(entry: WaitingEntry): void {
    this.due.push(entry);
    this.latestDueRunAt = Math.max(this.latestDueRunAt, entry.job.runAt);
  }

  private delayAllDue(): void {
    for (let entry = this.due.pop(); entry; entry = this.due.pop()) this.delayed.push(entry);
    this.latestDueRunAt = -Infinity;
  }
}

/**
 * For findByDeliveryId: the kept jobs of each delivery id in enqueue order (the lookup answers with the first, the
 * one a walk over the queued jobs met first). One job per id is the rule, so an array only for ids that repeat.
 */
class JobsByDeliveryId {
  private readonly jobs = new Map<string, Job | Job[]>();

  add(job: Job): void {
    const known = this.jobs.get(job.deliveryId);
    if (known === undefined) this.jobs.set(job.deliveryId, job);
    else if (Array.isArray(known)) known.push(job);
    else this.jobs.set(job.deliveryId, [known, job]);
  }

  remove(job: Job): void {
    const known = this.jobs.get(job.deliveryId);
    if (known === job) this.jobs.delete(job.deliveryId);
    if (!Array.isArray(known)) return;
    const at = known.indexOf(job);
    if (at >= 0) known.splice(at, 1);
    if (known.length === 1) this.jobs.set(job.deliveryId, known[0] as Job);
  }

  first(deliveryId: string): Job | undefined {
    const known = this.jobs.get(deliveryId);
    return Array.isArray(known) ? known[0] : known;
  }
}

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
  private readonly events = new EventEmitter();
  private readonly nextJobId = jobIdSequence();
  private timer?: NodeJS.Timeout;

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
    this.running.delete(job.id);
    this.done.delete(job.id);
    job.status = status;
    if (status === 'pending') this.waiting.add(job, dueNow);
    else if (status === 'running') this.running.add(job.id);
    else if (status === 'done') {
      this.done.add(job.id);
      if (this.done.size > this.doneKept) this.forgetOldestDone();
    }
  }

  private forgetOldestDone(): void {
    const oldest = this.done.values().next().value as string;
    this.done.delete(oldest);
    this.byDeliveryId.remove(this.mustGet(oldest));
    this.jobs.delete(oldest);
  }

  async enqueue(input: JobInput, hints: EnqueueHints = {}): Promise<Job> {
    const at = this.now();
    const id = this.nextJobId();
    const kept = hints.payloadJson === undefined ? input.payload : new JsonText(hints.payloadJson);
    const job = pendingJob(id, input, kept, at);
    this.jobs.set(id, job);
    this.byDeliveryId.add(job);
    this.waiting.add(job, true);
    this.events.emit('ready');
    // The payload is the caller's own object: deep-copying it per request would cost more than the rest.
    return pendingJob(id, input, input.payload, at);
  }

  async lease(owner: string, leaseMs: number): Promise<Job | undefined> {
    // Everything here is synchronous: without a turn of the event loop per job, workers with a fast agent
    // would drain a whole backlog in one go while HTTP requests wait (p99 of seconds in docs/performance.md).
    await new Promise<void>((resolve) => setImmediate(resolve));
    const now = this.now();
    const take = (job: Job): Job => {
      this.setStatus(job, 'running');
      job.attempts += 1;
      job.updatedAt = now;
      this.leases.set(job.id, { owner, until: now + leaseMs });
      return snapshot(job);
    };
    const due = this.waiting.firstDue(now);
    if (due) return take(due);
    for (const id of this.running) {
      const lease = this.leases.get(id);
      const job = this.jobs.get(id);
      if (job && lease !== undefined && lease.until <= now) return take(job);
    }
    this.scheduleWake(now);
    return undefined;
  }

  /** Wakes idle workers when the earliest delayed retry becomes due. */
  private scheduleWake(now: number): void {
    const next = this.waiting.nextRunAfter(now);
    if (next === undefined) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.events.emit('ready'), Math.max(0, next - now));
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

  async saveAnswer(jobId: string, prompt: string, answer: string): Promise<void> {
    const job = this.mustGet(jobId);
    // The delivery step's first attempt runs right away under the same lease, so it counts as attempt 1.
    Object.assign(job, { prompt, answer, step: 'deliver', attempts: 1, updatedAt: this.now() });
  }

  async saveDestinations(jobId: string, destinations: DestinationState[]): Promise<void> {
    const job = this.mustGet(jobId);
    // A copy: the worker keeps changing its own list.
    Object.assign(job, { destinations: structuredClone(destinations), updatedAt: this.now() });
  }

  async complete(jobId: string, receipt: unknown): Promise<void> {
    const job = this.mustGet(jobId);
    const at = this.now();
    Object.assign(job, { receipt, updatedAt: at, finishedAt: at });
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

  async release(jobId: string): Promise<void> {
    const job = this.mustGet(jobId);
    if (job.status !== 'running') return;
    this.setStatus(job, 'pending');
    job.attempts = Math.max(0, job.attempts - 1);
    this.leases.delete(jobId);
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

  async pendingCount(): Promise<number> {
    return this.waiting.size + this.running.size;
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
    const found: Job[] = [];
    for (const job of this.jobs.values()) {
      if (filter.status && job.status !== filter.status) continue;
      if (filter.route && job.route !== filter.route) continue;
      found.push(job);
    }
    found.sort((a, b) => b.createdAt - a.createdAt);
    // Only the jobs returned are copied (and their payloads parsed).
    return (filter.limit ? found.slice(0, filter.limit) : found).map(snapshot);
  }

  onReady(listener: () => void): () => void {
    this.events.on('ready', listener);
    return () => this.events.off('ready', listener);
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
  }
}
