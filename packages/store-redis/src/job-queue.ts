// The job queue on bullmq: manual fetching with a token per lease, a short self-renewed lock, stalled-job takeover.
import { randomUUID } from 'node:crypto';
import type { DestinationState, Job, JobError, JobFilter, JobInput, JobQueue, JobStatus, JobStep } from '@hookwise/core';
import { Job as BullJob, Queue, Worker, type JobType } from 'bullmq';
import type { Redis } from 'ioredis';
import { DeliveryLookups, LIVE_LOOKUP_MS } from './delivery-lookups';

/** What a bullmq job carries; its status is bullmq's state, its id bullmq's job id. */
interface JobData extends JobInput {
  step: JobStep;
  attempts: number;
  prompt?: string;
  answer?: string;
  errors: JobError[];
  destinations?: DestinationState[];
  runAt: number;
  createdAt: number;
  updatedAt: number;
}

const STATES: Record<JobStatus, JobType[]> = {
  pending: ['waiting', 'delayed', 'prioritized', 'paused'],
  running: ['active'],
  done: ['completed'],
  dead: ['failed'],
};

function statusOf(state: string): JobStatus | undefined {
  for (const [status, types] of Object.entries(STATES) as Array<[JobStatus, string[]]>)
    if (types.includes(state) || (status === 'pending' && state === 'wait')) return status;
  return undefined;
}

export interface RedisJobQueueOptions {
  /**
   * The bullmq lock on a held job (default 5 s). This store renews it itself while the job's lease holds, so
   * it only runs out when the holding process is gone (or stalled this long): a killed gateway's jobs are
   * taken over about this long after its death, whatever `store.lease_seconds` says.
   */
  lockMs?: number;
  /** How often the locks of held jobs are renewed (default a fifth of `lockMs`; must be well below it). */
  lockRenewMs?: number;
  /** How often stalled (lock-expired) jobs are looked for and handed to a live gateway (default 1 s, at most `lockMs`). */
  stalledIntervalMs?: number;
  /** A job whose gateway died this many times in a row becomes a dead letter (a poison job; default 10). */
  maxStalledCount?: number;
  /** Done jobs and their delivery-id lookups are removed after this long (default 7 days); dead letters are kept. */
  doneRetentionMs?: number;
}

/** A job this process holds: the bullmq job, the lock token of the lease, and when the lease runs out (local epoch ms). */
interface Held {
  job: BullJob<JobData>;
  token: string;
  leaseUntil: number;
}

/**
 * Two clocks guard a held job. The lease (`leaseMs`, from `store.lease_seconds`) is the owner's promise to renew;
 * the bullmq lock (`lockMs`, a few seconds) is what other gateways see. A timer in this process extends the lock
 * of every held job whose lease still holds, never past the lease's end. So:
 * - a live gateway keeps a long-running job indefinitely (its worker renews the lease, the timer the lock);
 * - a killed gateway renews nothing: its locks lapse within `lockMs` and the stalled check hands the jobs on;
 * - an owner that stops renewing loses the job when its lease runs out, as with the other stores.
 */
export class RedisJobQueue implements JobQueue {
  readonly queue: Queue<JobData>;
  readonly lookups: DeliveryLookups;
  private worker?: Worker<JobData>;
  private readonly lockMs: number;
  private readonly doneRetentionMs: number;
  private lockTimer?: NodeJS.Timeout;
  private renewingLocks = false;
  private readonly leased = new Map<string, Held>();
  private readonly readyListeners = new Set<() => void>();

  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
    private readonly options: RedisJobQueueOptions = {},
  ) {
    this.queue = new Queue<JobData>('jobs', { connection: client, prefix });
    this.lockMs = options.lockMs ?? 5000;
    this.doneRetentionMs = options.doneRetentionMs ?? 7 * 24 * 3600 * 1000;
    this.lookups = new DeliveryLookups(client, prefix);
  }

  /** The Redis key of a job's hash is this plus its id (bullmq's layout; the accept script checks it exists). */
  get jobKeyPrefix(): string {
    return this.queue.toKey('');
  }

  private toJob(job: BullJob<JobData>, state: string): Job {
    const data = job.data;
    const out: Job = { ...data, id: String(job.id), status: statusOf(state) ?? 'pending', errors: [...(data.errors ?? [])] };
    if (out.status === 'done') {
      out.receipt = job.returnvalue;
      out.finishedAt = job.finishedOn;
    }
    if (out.status === 'dead') {
      out.finishedAt = job.finishedOn;
      // A job failed by bullmq itself (stalled too often) has no error of ours; say why it died.
      if (out.errors.length === 0 && job.failedReason)
        out.errors.push({ at: job.finishedOn ?? Date.now(), step: data.step, attempt: data.attempts, message: job.failedReason, retryable: false });
    }
    return out;
  }

  /**
   * Two writes in the one order that is safe when the process dies between them: first the delivery-id lookup
   * (naming the job id chosen here), then the job. A crash in between leaves a lookup naming a job that does not
   * exist; `findByDeliveryId` then finds no job, which is the truth, as the event was never accepted (no 202 was
   * sent), and the stray lookup expires or is overwritten by the sender's retry. The other order could leave an
   * accepted job that no lookup names. (One MULTI with bullmq's add script would need bullmq internals.) The
   * gateway's own path, the store's `accept`, writes the lookup together with its claim, then calls `addClaimed`.
   */
  async enqueue(input: JobInput): Promise<Job> {
    const id = randomUUID();
    await this.lookups.set(input.deliveryId, id);
    return this.addClaimed(input, id);
  }

  /** Stores the job under `id`, whose delivery-id lookup is already written. */
  async addClaimed(input: JobInput, id: string): Promise<Job> {
    const now = Date.now();
    const data: JobData = { ...input, step: 'agent', attempts: 0, errors: [], runAt: now, createdAt: now, updatedAt: now };
    const job = await this.queue.add('event', data, {
      jobId: id,
      attempts: 1, // retries are decided by the worker pool, with its own backoff
      removeOnComplete: { age: Math.round(this.doneRetentionMs / 1000) },
      removeOnFail: false,
    });
    this.wake();
    return this.toJob(job, 'waiting');
  }

  private ensureWorker(): Worker<JobData> {
    if (this.worker) return this.worker;
    // No processor: jobs are fetched by hand; the stalled checker is what hands a dead gateway's jobs to us.
    this.worker = new Worker<JobData>('jobs', null, {
      connection: this.client,
      prefix: this.prefix,
      autorun: false,
      lockDuration: this.lockMs,
      // A lapsed lock is noticed by the first check after it lapsed (the job is in the stalled set by then), so
      // a takeover takes at most the lock time plus one check interval.
      stalledInterval: this.options.stalledIntervalMs ?? Math.min(1000, this.lockMs),
      maxStalledCount: this.options.maxStalledCount ?? 10,
    });
    this.worker.on('error', () => undefined); // connection errors surface through the calls that failed
    // bullmq fails a job that stalled more than maxStalledCount times itself (in getNextJob, when it comes up
    // again): a dead letter, whose lookup is kept for good like the ones `fail` makes.
    this.worker.on('failed', (job) => {
      if (job) void this.lookups.keepForever(job.data.deliveryId, String(job.id)).catch(() => undefined);
    });
    void this.worker.startStalledCheckTimer();
    this.lockTimer = setInterval(() => void this.renewLocks(), this.options.lockRenewMs ?? Math.floor(this.lockMs / 5));
    this.lockTimer.unref();
    return this.worker;
  }

  /** The lock for a lease that runs `leaseLeftMs` more: the usual short lock, never outlasting the lease. */
  private lockFor(leaseLeftMs: number): number {
    return Math.max(1, Math.min(this.lockMs, Math.floor(leaseLeftMs)));
  }

  /** The lock timer: extends the lock of each held job whose lease holds; a job whose lock was lost is given up. */
  private async renewLocks(): Promise<void> {
    if (this.renewingLocks) return; // Redis is slow: the previous round is still under way
    this.renewingLocks = true;
    try {
      const now = Date.now();
      const live = [...this.leased.values()].filter((held) => held.leaseUntil > now);
      await Promise.all(
        live.map(async (held) => {
          const extended = await held.job.extendLock(held.token, this.lockFor(held.leaseUntil - now)).catch(() => undefined);
          // 0: the lock is gone or another's (finished, or taken over after a stall); undefined: Redis unreachable, try again.
          if (extended !== undefined && Number(extended) !== 1) held.leaseUntil = 0;
        }),
      );
    } finally {
      this.renewingLocks = false;
    }
  }

  async lease(owner: string, leaseMs: number): Promise<Job | undefined> {
    const worker = this.ensureWorker();
    const token = `${owner}:${randomUUID()}`;
    const leaseUntil = Date.now() + leaseMs;
    const job = (await worker.getNextJob(token, { block: false })) as BullJob<JobData> | undefined;
    if (!job) return undefined;
    if (leaseMs < this.lockMs) await job.extendLock(token, this.lockFor(leaseMs));
    this.leased.set(String(job.id), { job, token, leaseUntil });
    await job.updateData({ ...job.data, attempts: (job.data.attempts ?? 0) + 1, updatedAt: Date.now() });
    return this.toJob(job, 'active');
  }

  /** Extends the lease; the lock timer then keeps the lock alive until the new end. */
  async renew(jobId: string, owner: string, leaseMs: number): Promise<boolean> {
    const held = this.leased.get(jobId);
    if (!held || !held.token.startsWith(`${owner}:`)) return false;
    const leaseUntil = Date.now() + leaseMs;
    try {
      if (Number(await held.job.extendLock(held.token, this.lockFor(leaseMs))) !== 1) return false;
    } catch {
      return false;
    }
    held.leaseUntil = leaseUntil;
    return true;
  }

  /** The job as this process holds it, or fetched fresh (e.g. a CLI acting on a job). */
  private async load(jobId: string): Promise<{ job: BullJob<JobData>; token?: string }> {
    const held = this.leased.get(jobId);
    if (held) return held;
    const job = (await BullJob.fromId(this.queue, jobId)) as BullJob<JobData> | undefined;
    if (!job) throw new Error(`no job ${jobId} in the Redis store`);
    return { job };
  }

  /** The first delivery attempt runs at once under the same lease, so the delivery step starts at attempt 1. */
  async saveAnswer(jobId: string, prompt: string, answer: string): Promise<void> {
    const { job } = await this.load(jobId);
    await job.updateData({ ...job.data, prompt, answer, step: 'deliver', attempts: 1, updatedAt: Date.now() });
  }

  async saveDestinations(jobId: string, destinations: DestinationState[]): Promise<void> {
    const { job } = await this.load(jobId);
    await job.updateData({ ...job.data, destinations, updatedAt: Date.now() });
  }

  /**
   * Moves a job to the dead letters. Its lookup is made permanent first: a crash in between leaves a live job
   * with a permanent lookup, which its completion or death sets right, never a dead letter whose lookup expires.
   */
  private async bury(job: BullJob<JobData>, token: string, reason: string): Promise<void> {
    await this.lookups.keepForever(job.data.deliveryId, String(job.id));
    await job.moveToFailed(new Error(reason), token, false);
  }

  /** The lookup gets the done retention before the job is done (a crash in between leaves a job that runs again). */
  async complete(jobId: string, receipt: unknown): Promise<void> {
    const { job, token } = await this.load(jobId);
    await job.updateData({ ...job.data, updatedAt: Date.now() });
    await this.lookups.expireIn(job.data.deliveryId, jobId, this.doneRetentionMs);
    await job.moveToCompleted(receipt ?? {}, token ?? '0', false);
    this.leased.delete(jobId);
  }

  async fail(jobId: string, error: JobError, retryAt: number | null): Promise<void> {
    const { job, token } = await this.load(jobId);
    const now = Date.now();
    await job.updateData({ ...job.data, errors: [...(job.data.errors ?? []), error], runAt: retryAt ?? now, updatedAt: now });
    if (retryAt === null) await this.bury(job, token ?? '0', error.message);
    else await job.moveToDelayed(retryAt, token ?? '0');
    this.leased.delete(jobId);
  }

  async release(jobId: string): Promise<void> {
    const held = this.leased.get(jobId);
    if (!held) return;
    const { job, token } = held;
    await job.updateData({ ...job.data, attempts: Math.max(0, (job.data.attempts ?? 1) - 1), updatedAt: Date.now() });
    await job.moveToWait(token);
    this.leased.delete(jobId);
    this.wake();
  }

  async retryDead(jobId: string): Promise<boolean> {
    const job = (await BullJob.fromId(this.queue, jobId)) as BullJob<JobData> | undefined;
    if (!job || (await job.getState()) !== 'failed') return false;
    const now = Date.now();
    await job.updateData({ ...job.data, attempts: 0, runAt: now, updatedAt: now });
    await job.retry('failed');
    // After the retry: a crash in between leaves a live job whose lookup is permanent, not a dead letter whose expires.
    await this.lookups.expireIn(job.data.deliveryId, jobId, LIVE_LOOKUP_MS);
    this.wake();
    return true;
  }

  async pendingCount(): Promise<number> {
    const counts = await this.queue.getJobCounts(...STATES.pending, ...STATES.running);
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  }

  async get(id: string): Promise<Job | undefined> {
    const job = (await BullJob.fromId(this.queue, id)) as BullJob<JobData> | undefined;
    if (!job) return undefined;
    return this.toJob(job, await job.getState());
  }

  /** A lookup naming a job that does not exist (an enqueue cut short, see `enqueue`) means no job. */
  async findByDeliveryId(deliveryId: string): Promise<Job | undefined> {
    const id = await this.lookups.jobIdOf(deliveryId);
    return id ? this.get(id) : undefined;
  }

  async list(filter: JobFilter = {}): Promise<Job[]> {
    const statuses = filter.status ? [filter.status] : (Object.keys(STATES) as JobStatus[]);
    // Without a route filter the newest `limit` of each state are enough; with one, all must be looked at.
    const end = filter.limit && !filter.route ? filter.limit - 1 : -1;
    const out: Job[] = [];
    for (const status of statuses) {
      const jobs = (await this.queue.getJobs(STATES[status], 0, end, false)) as Array<BullJob<JobData> | undefined>;
      for (const job of jobs) {
        if (!job || (filter.route && job.data.route !== filter.route)) continue;
        out.push(this.toJob(job, STATES[status][0]));
      }
    }
    const newestFirst = out.sort((a, b) => b.createdAt - a.createdAt);
    return newestFirst.slice(0, filter.limit ?? newestFirst.length);
  }

  /** Local wake-ups only: other instances' jobs are found by the worker pool's poll. */
  onReady(listener: () => void): () => void {
    this.readyListeners.add(listener);
    return () => this.readyListeners.delete(listener);
  }

  private wake(): void {
    for (const listener of this.readyListeners) listener();
  }

  /** Held jobs are not released: their locks lapse and another gateway takes them over (use `release` first). */
  async close(): Promise<void> {
    if (this.lockTimer) clearInterval(this.lockTimer);
    await this.worker?.close(true);
    await this.queue.close();
  }
}
