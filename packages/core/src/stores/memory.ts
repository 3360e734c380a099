// In-memory stores: a delivery-id cache, a fixed-window rate limiter and a job queue.
import { createHash, hash, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { DeliveryIdCache, EnqueueHints, Job, JobError, JobFilter, JobInput, JobQueue, RateLimiter, RateWindow, Store } from './types';

export const DELIVERY_ID_TTL_MS = 60 * 60 * 1000;
export const RATE_WINDOW_MS = 60 * 1000;

/** SHA-256 of a string as a 32-character latin1 ("binary") string; `crypto.hash` (Node 20.12+) is one call instead of a Hash object. */
const sha256Latin1: (text: string) => string =
  typeof hash === 'function' ? (text) => hash('sha256', text, 'binary') : (text) => createHash('sha256').update(text).digest('binary');

/**
 * The cache key of (route, id): the SHA-256 of `route\0id` as a latin1 string. Senders choose ids of any length,
 * and a million plain `route\0id` keys took about 3× the memory (docs/performance.md); a digest keeps memory per
 * remembered id flat, with collisions out of reach.
 */
function idKey(route: string, deliveryId: string): string {
  return sha256Latin1(`${route}\u0000${deliveryId}`);
}

/**
 * Remembers ids in a Map in the order they were claimed, each with its expiry time. Every id lives equally long,
 * so the oldest entry is always the first to expire and the first to go when the size bound is reached: expired
 * ids are dropped from the front as new ones come in, and memory stays bounded by `max` under floods of unique ids.
 */
export class MemoryDeliveryIdCache implements DeliveryIdCache {
  private readonly expiries = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(options: { ttlMs?: number; max?: number; now?: () => number } = {}) {
    this.ttlMs = options.ttlMs ?? DELIVERY_ID_TTL_MS;
    this.max = options.max ?? 1_000_000;
    this.now = options.now ?? Date.now;
  }

  async claim(route: string, deliveryId: string): Promise<boolean> {
    const key = idKey(route, deliveryId);
    const now = this.now();
    const expiry = this.expiries.get(key);
    if (expiry !== undefined && expiry > now) return false;
    // An expired id is claimed afresh: deleted first so that it moves to the end of the claim order.
    if (expiry !== undefined) this.expiries.delete(key);
    this.expiries.set(key, now + this.ttlMs);
    this.forgetExpiredAndOldest(now);
    return true;
  }

  async release(route: string, deliveryId: string): Promise<void> {
    this.expiries.delete(idKey(route, deliveryId));
  }

  /** Drops ids from the front (oldest first) while they have expired or there are more than `max`. */
  private forgetExpiredAndOldest(now: number): void {
    for (const [key, expiry] of this.expiries) {
      if (expiry > now && this.expiries.size <= this.max) return;
      this.expiries.delete(key);
    }
  }

  get size(): number {
    return this.expiries.size;
  }
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly windowMs = RATE_WINDOW_MS, private readonly now: () => number = Date.now) {}

  private window(route: string): { start: number; count: number } {
    const now = this.now();
    const start = now - (now % this.windowMs);
    let w = this.windows.get(route);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(route, w);
    }
    return w;
  }

  private answer(w: { start: number; count: number }, limit: number): RateWindow {
    return { allowed: w.count < limit, retryAfterSeconds: Math.max(1, Math.ceil((w.start + this.windowMs - this.now()) / 1000)) };
  }

  async check(route: string, limit: number): Promise<RateWindow> {
    return this.answer(this.window(route), limit);
  }

  async hit(route: string, limit: number): Promise<RateWindow> {
    const w = this.window(route);
    const result = this.answer(w, limit);
    if (result.allowed) w.count += 1;
    return result;
  }
}

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
  const { route, event, deliveryId, receivedAt } = input;
  return { route, event, deliveryId, payload, receivedAt, id, status: 'pending', attempts: 0, step: 'agent', errors: [], runAt: at, createdAt: at, updatedAt: at };
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

export class MemoryJobQueue implements JobQueue {
  // The queued jobs; a job's `payload` may be a JsonText (see snapshot()). Never handed out: callers get snapshots.
  private readonly jobs = new Map<string, Job>();
  // Index sets by status, so that lease() and pendingCount() never walk finished jobs: under a flood the
  // queue would otherwise get slower (and bigger) with every accepted event.
  private readonly waiting = new Set<string>();
  private readonly running = new Set<string>();
  private readonly done = new Set<string>();
  private readonly leases = new Map<string, Lease>();
  private readonly events = new EventEmitter();
  private readonly nextJobId = jobIdSequence();
  private timer?: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now, private readonly doneKept = MEMORY_DONE_JOBS_KEPT) {
    this.events.setMaxListeners(0);
  }

  /** Moves a job to a status and keeps the index sets in step; old done jobs beyond the bound are forgotten. */
  private setStatus(job: Job, status: Job['status']): void {
    this.waiting.delete(job.id);
    this.running.delete(job.id);
    this.done.delete(job.id);
    job.status = status;
    if (status === 'pending') this.waiting.add(job.id);
    else if (status === 'running') this.running.add(job.id);
    else if (status === 'done') {
      this.done.add(job.id);
      if (this.done.size > this.doneKept) {
        const oldest = this.done.values().next().value as string;
        this.done.delete(oldest);
        this.jobs.delete(oldest);
      }
    }
  }

  async enqueue(input: JobInput, hints: EnqueueHints = {}): Promise<Job> {
    const at = this.now();
    const id = this.nextJobId();
    const kept = hints.payloadJson === undefined ? input.payload : new JsonText(hints.payloadJson);
    this.jobs.set(id, pendingJob(id, input, kept, at));
    this.waiting.add(id);
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
    for (const id of this.waiting) {
      const job = this.jobs.get(id);
      if (job && job.runAt <= now) return take(job);
    }
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
    let next = Infinity;
    for (const id of this.waiting) {
      const runAt = this.jobs.get(id)?.runAt ?? Infinity;
      if (runAt > now) next = Math.min(next, runAt);
    }
    if (next === Infinity) return;
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
      this.setStatus(job, 'pending');
      job.runAt = retryAt;
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
    for (const job of this.jobs.values()) if (job.deliveryId === deliveryId) return snapshot(job);
    return undefined;
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

export function createMemoryStore(): Store {
  const jobs = new MemoryJobQueue();
  return { deliveryIds: new MemoryDeliveryIdCache(), rateLimiter: new MemoryRateLimiter(), jobs, close: () => jobs.close() };
}
