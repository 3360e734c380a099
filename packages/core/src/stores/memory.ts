// In-memory stores: the lru-cache delivery-id cache, a fixed-window rate limiter and a job queue.
import { createHash, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { LRUCache } from 'lru-cache';
import type { DeliveryIdCache, Job, JobError, JobFilter, JobInput, JobQueue, RateLimiter, RateWindow, Store } from './types';

export const DELIVERY_ID_TTL_MS = 60 * 60 * 1000;
export const RATE_WINDOW_MS = 60 * 1000;

/**
 * The cache key of (route, id): 16 bytes of SHA-256 as a latin1 string. Senders choose ids of any length, and
 * a million plain `route\0id` keys took about 3× the memory (docs/performance.md); a 128-bit digest keeps
 * memory per remembered id flat, with collisions out of reach.
 */
function idKey(route: string, deliveryId: string): string {
  return createHash('sha256').update(route).update('\u0000').update(deliveryId).digest().toString('latin1', 0, 16);
}

export class MemoryDeliveryIdCache implements DeliveryIdCache {
  private readonly seen: LRUCache<string, true>;

  constructor(options: { ttlMs?: number; max?: number } = {}) {
    // The size bound keeps memory flat under floods of unique ids; the oldest ids go first. Bounded by `maxSize`
    // (every id weighs 1), not `max`: `max` preallocates its index arrays (33 MB and 155 ms for a million at
    // every start), `maxSize` grows with the ids actually seen.
    this.seen = new LRUCache({ maxSize: options.max ?? 1_000_000, sizeCalculation: () => 1, ttl: options.ttlMs ?? DELIVERY_ID_TTL_MS, ttlAutopurge: false });
  }

  async claim(route: string, deliveryId: string): Promise<boolean> {
    const key = idKey(route, deliveryId);
    if (this.seen.has(key)) return false;
    this.seen.set(key, true);
    return true;
  }

  async release(route: string, deliveryId: string): Promise<void> {
    this.seen.delete(idKey(route, deliveryId));
  }

  get size(): number {
    return this.seen.size;
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

export class MemoryJobQueue implements JobQueue {
  private readonly jobs = new Map<string, Job>();
  // Index sets by status, so that lease() and pendingCount() never walk finished jobs: under a flood the
  // queue would otherwise get slower (and bigger) with every accepted event.
  private readonly waiting = new Set<string>();
  private readonly running = new Set<string>();
  private readonly done = new Set<string>();
  private readonly leases = new Map<string, Lease>();
  private readonly events = new EventEmitter();
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

  async enqueue(input: JobInput): Promise<Job> {
    const at = this.now();
    const job: Job = { ...input, id: randomUUID(), status: 'pending', attempts: 0, step: 'agent', errors: [], runAt: at, createdAt: at, updatedAt: at };
    this.jobs.set(job.id, job);
    this.waiting.add(job.id);
    this.events.emit('ready');
    // A shallow copy: the payload is the caller's own object, and deep-copying it per request costs more than the rest.
    return { ...job, errors: [] };
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
      return structuredClone(job);
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
    return job && structuredClone(job);
  }

  async findByDeliveryId(deliveryId: string): Promise<Job | undefined> {
    for (const job of this.jobs.values()) if (job.deliveryId === deliveryId) return structuredClone(job);
    return undefined;
  }

  async list(filter: JobFilter = {}): Promise<Job[]> {
    const out: Job[] = [];
    for (const job of this.jobs.values()) {
      if (filter.status && job.status !== filter.status) continue;
      if (filter.route && job.route !== filter.route) continue;
      out.push(structuredClone(job));
    }
    out.sort((a, b) => b.createdAt - a.createdAt);
    return filter.limit ? out.slice(0, filter.limit) : out;
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
