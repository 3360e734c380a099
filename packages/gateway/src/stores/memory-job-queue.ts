// The memory store's job queue: waiting jobs in two heaps (due time, waiting order), leases, dead letters.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import {
  COALESCE_MAX_EVENTS,
  type AgentUsage,
  type CoalescedEvents,
  type DestinationState,
  type EnqueueHints,
  type Job,
  type JobError,
  type JobFilter,
  type JobInput,
  type JobOutcome,
  type JobQueue,
} from '@hookwise/core';

/** The longest delay setTimeout honours (2^31-1 ms); a longer one fires after 1 ms. */
const MAX_TIMER_MS = 0x7fffffff;

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

/**
 * How the queue keeps a payload: as its JSON text when the caller has it (the pipeline always does), otherwise as a
 * private deep copy, so that a caller changing its object after `enqueue` never changes the queued job.
 */
function keep(payload: unknown, json: string | undefined): unknown {
  return json === undefined ? structuredClone(payload) : new JsonText(json);
}

/** A kept payload as a fresh object for a caller. */
function unkeep(kept: unknown): unknown {
  return kept instanceof JsonText ? JSON.parse(kept.text) : structuredClone(kept);
}

/** A caller's copy of a queued job: nothing it changes reaches the queue, and the payloads are objects again. */
function snapshot(stored: Job): Job {
  const { payload, coalesced } = stored;
  const job = structuredClone(coalesced ? { ...stored, payload: undefined, coalesced: undefined } : { ...stored, payload: undefined }) as Job;
  job.payload = unkeep(payload);
  if (coalesced) job.coalesced = copyOfEvents(coalesced);
  return job;
}

function copyOfEvents(events: CoalescedEvents): CoalescedEvents {
  const copy: CoalescedEvents = { deliveryIds: [...events.deliveryIds] };
  if (events.payloads) copy.payloads = events.payloads.map(unkeep);
  return copy;
}

/** The key of a route's coalesce or concurrency key in the queue's maps (route names never hold a NUL). */
function routeKey(route: string, key: string): string {
  return `${route}\u0000${key}`;
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

  /**
   * Takes a due job's entry out of the heaps while it must wait for its concurrency key: it stays waiting (and
   * counted), and keeps its place in the waiting order for when `putBack` returns it.
   */
  park(jobId: string): WaitingEntry | undefined {
    const entry = this.entries.get(jobId);
    if (entry && !this.due.remove(entry)) this.delayed.remove(entry);
    return entry;
  }

  /** Returns a parked entry to the due jobs, unless its job left the waiting jobs (or started waiting afresh) meanwhile. */
  putBack(entry: WaitingEntry): void {
    if (this.entries.get(entry.job.id) === entry) this.pushDue(entry);
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
 * A coalesced job is found by each of the delivery ids merged into it.
 */
class JobsByDeliveryId {
  private readonly jobs = new Map<string, Job | Job[]>();

  add(deliveryId: string, job: Job): void {
    const known = this.jobs.get(deliveryId);
    if (known === undefined) this.jobs.set(deliveryId, job);
    else if (Array.isArray(known)) known.push(job);
    else this.jobs.set(deliveryId, [known, job]);
  }

  /** Forgets a job under every delivery id it was found by. */
  remove(job: Job): void {
    for (const deliveryId of job.coalesced?.deliveryIds ?? [job.deliveryId]) this.removeOne(deliveryId, job);
  }

  private removeOne(deliveryId: string, job: Job): void {
    const known = this.jobs.get(deliveryId);
    if (known === job) this.jobs.delete(deliveryId);
    if (!Array.isArray(known)) return;
    const at = known.indexOf(job);
    if (at >= 0) known.splice(at, 1);
    if (known.length === 1) this.jobs.set(deliveryId, known[0] as Job);
  }

  first(deliveryId: string): Job | undefined {
    const known = this.jobs.get(deliveryId);
    return Array.isArray(known) ? known[0] : known;
  }
}

/** The job's (route, concurrency key) in the queue's maps; undefined for a job without a key. */
function concurrencySlot(job: Job): string | undefined {
  return job.concurrencyKey === undefined ? undefined : routeKey(job.route, job.concurrencyKey);
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
  // Coalescing: per (route, coalesce key), the job that still takes events: pending, never leased, not full.
  // A job leaves this map when it is first leased or holds COALESCE_MAX_EVENTS events, and never comes back,
  // so a job handed back by a shutdown (attempts 0 again) does not absorb events its interrupted run never saw.
  private readonly coalescing = new Map<string, Job>();
  // Concurrency keys: the running jobs per (route, key), and the due jobs parked while their key is busy (in
  // waiting order). Both stay empty for routes without a key, so the common lease pays one `size` check.
  private readonly runningByKey = new Map<string, Set<Job>>();
  private readonly parked = new Map<string, WaitingEntry[]>();
  private readonly events = new EventEmitter();
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
    if (this.running.delete(job.id)) this.leftRunning(job);
    this.done.delete(job.id);
    job.status = status;
    if (status === 'pending') this.waiting.add(job, dueNow);
    else if (status === 'running') this.startedRunning(job);
    else if (status === 'done') {
      this.done.add(job.id);
      if (this.done.size > this.doneKept) this.forgetOldestDone();
    }
  }

  private startedRunning(job: Job): void {
    this.running.add(job.id);
    const slot = concurrencySlot(job);
    if (slot === undefined) return;
    const running = this.runningByKey.get(slot);
    if (running) running.add(job);
    else this.runningByKey.set(slot, new Set([job]));
  }

  /** A job of a busy concurrency key ended its run: the jobs parked behind it may be leased now, so workers wake. */
  private leftRunning(job: Job): void {
    const slot = concurrencySlot(job);
    if (slot === undefined) return;
    const running = this.runningByKey.get(slot);
    running?.delete(job);
    if (running?.size === 0) this.runningByKey.delete(slot);
    if (this.parked.has(slot)) this.events.emit('ready');
  }

  /** Whether another job of this (route, key) runs under a live lease. */
  private busy(slot: string, job: Job, now: number): boolean {
    for (const other of this.runningByKey.get(slot) ?? []) {
      if (other !== job && (this.leases.get(other.id)?.until ?? -Infinity) > now) return true;
    }
    return false;
  }

  private forgetOldestDone(): void {
    const oldest = this.done.values().next().value as string;
    this.done.delete(oldest);
    this.byDeliveryId.remove(this.mustGet(oldest));
    this.jobs.delete(oldest);
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
    const joined = input.coalesce && this.coalesceInto(input, input.coalesce.key, kept, at);
    if (joined) return { job: joined, merged: true };
    const id = this.nextJobId();
    const job = pendingJob(id, input, kept, at);
    // With its JSON text (made once per route, EnqueueHints) the definition is the caller's shared, unchanging
    // object and is kept as it is; without, it may be anyone's object and is copied like the payload.
    if (hints.routeDefinitionJson === undefined && input.routeDefinition) job.routeDefinition = structuredClone(input.routeDefinition);
    if (input.concurrencyKey !== undefined) job.concurrencyKey = input.concurrencyKey;
    let dueNow = true;
    if (input.coalesce) {
      const { key, windowMs, mode } = input.coalesce;
      // The window counts from the first event and is never extended (core's JobInput.coalesce).
      job.runAt = input.receivedAt + windowMs;
      job.coalesceKey = key;
      job.coalesced = mode === 'all' ? { deliveryIds: [input.deliveryId], payloads: [kept] } : { deliveryIds: [input.deliveryId] };
      this.coalescing.set(routeKey(input.route, key), job);
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

  /** Merges an event into the job of its (route, coalesce key) that still takes events; undefined when there is none. */
  private coalesceInto(input: JobInput, key: string, kept: unknown, at: number): Job | undefined {
    const slot = routeKey(input.route, key);
    const job = this.coalescing.get(slot);
    if (!job) return undefined;
    const events = job.coalesced as CoalescedEvents;
    job.payload = kept;
    job.event = input.event;
    job.updatedAt = at;
    events.deliveryIds.push(input.deliveryId);
    events.payloads?.push(kept);
    this.byDeliveryId.add(input.deliveryId, job);
    if (events.deliveryIds.length >= COALESCE_MAX_EVENTS) this.coalescing.delete(slot);
    return job;
  }

  async lease(owner: string, leaseMs: number): Promise<Job | undefined> {
    // Everything here is synchronous: without a turn of the event loop per job, workers with a fast agent
    // would drain a whole backlog in one go while HTTP requests wait (p99 of seconds in docs/performance.md).
    await new Promise<void>((resolve) => setImmediate(resolve));
    const now = this.now();
    const take = (job: Job): Job => {
      if (job.coalesceKey !== undefined) {
        const slot = routeKey(job.route, job.coalesceKey);
        if (this.coalescing.get(slot) === job) this.coalescing.delete(slot);
      }
      // A hold's note said why the job waited; it is running now.
      if (job.note !== undefined) delete job.note;
      this.setStatus(job, 'running');
      job.attempts += 1;
      job.updatedAt = now;
      this.leases.set(job.id, { owner, until: now + leaseMs });
      return snapshot(job);
    };
    const due = this.firstLeasable(now);
    if (due) return take(due);
    for (const id of this.running) {
      const lease = this.leases.get(id);
      const job = this.jobs.get(id);
      if (!job || lease === undefined || lease.until > now) continue;
      const slot = concurrencySlot(job);
      if (slot === undefined || !this.busy(slot, job, now)) return take(job);
    }
    this.scheduleWake(now);
    return undefined;
  }

  /**
   * The first due job (in waiting order) whose concurrency key is free. Due jobs of a busy key are parked on the
   * way; parked jobs go back (to their old places in the order) once no job of their key runs under a live lease.
   */
  private firstLeasable(now: number): Job | undefined {
    if (this.parked.size > 0) this.unparkFreed(now);
    for (let job = this.waiting.firstDue(now); job; job = this.waiting.firstDue(now)) {
      const slot = concurrencySlot(job);
      if (slot === undefined || !this.busy(slot, job, now)) return job;
      const entry = this.waiting.park(job.id) as WaitingEntry;
      const parked = this.parked.get(slot);
      if (parked) parked.push(entry);
      else this.parked.set(slot, [entry]);
    }
    return undefined;
  }

  private unparkFreed(now: number): void {
    for (const [slot, entries] of this.parked) {
      const first = entries[0];
      if (first && this.busy(slot, first.job, now)) continue;
      this.parked.delete(slot);
      for (const entry of entries) this.waiting.putBack(entry);
    }
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
