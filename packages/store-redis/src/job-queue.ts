// The job queue on bullmq: manual fetching with a token per lease, lock renewal as the lease, stalled-job takeover.
import { randomUUID } from 'node:crypto';
import type { Job, JobError, JobFilter, JobInput, JobQueue, JobStatus, JobStep } from '@hookwise/core';
import { Job as BullJob, Queue, Worker, type JobType } from 'bullmq';
import type { Redis } from 'ioredis';

/** What a bullmq job carries; its status is bullmq's state, its id bullmq's job id. */
interface JobData extends JobInput {
  step: JobStep;
  attempts: number;
  prompt?: string;
  answer?: string;
  errors: JobError[];
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
  for (const [status, types] of Object.entries(STATES) as Array<[JobStatus, string[]]>) if (types.includes(state) || (status === 'pending' && state === 'wait')) return status;
  return undefined;
}

export interface RedisJobQueueOptions {
  /** How often stalled (lease-expired) jobs are looked for and handed to a live gateway (default the lease, at most 5 s). */
  stalledIntervalMs?: number;
  /** A job whose gateway died this many times in a row becomes a dead letter (a poison job; default 10). */
  maxStalledCount?: number;
  /** Done jobs are removed after this long (default 7 days); dead letters are kept. */
  doneRetentionMs?: number;
}

export class RedisJobQueue implements JobQueue {
  readonly queue: Queue<JobData>;
  private worker?: Worker<JobData>;
  private lockDuration = 0;
  /** Jobs this process holds: the bullmq job and the lock token of the lease. */
  private readonly leased = new Map<string, { job: BullJob<JobData>; token: string }>();
  private readonly readyListeners = new Set<() => void>();

  constructor(private readonly client: Redis, private readonly prefix: string, private readonly options: RedisJobQueueOptions = {}) {
    this.queue = new Queue<JobData>('jobs', { connection: client, prefix });
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
      if (out.errors.length === 0 && job.failedReason) out.errors.push({ at: job.finishedOn ?? Date.now(), step: data.step, attempt: data.attempts, message: job.failedReason, retryable: false });
    }
    return out;
  }

  async enqueue(input: JobInput): Promise<Job> {
    const now = Date.now();
    const data: JobData = { ...input, step: 'agent', attempts: 0, errors: [], runAt: now, createdAt: now, updatedAt: now };
    const id = randomUUID();
    const job = await this.queue.add('event', data, {
      jobId: id,
      attempts: 1, // retries are decided by the worker pool, with its own backoff
      removeOnComplete: { age: Math.round((this.options.doneRetentionMs ?? 7 * 24 * 3600 * 1000) / 1000) },
      removeOnFail: false,
    });
    await this.client.set(this.deliveryKey(input.deliveryId), id, 'PX', this.options.doneRetentionMs ?? 30 * 24 * 3600 * 1000);
    this.wake();
    return this.toJob(job, 'waiting');
  }

  private deliveryKey(deliveryId: string): string {
    return `${this.prefix}:job-by-delivery:${deliveryId}`;
  }

  private ensureWorker(leaseMs: number): Worker<JobData> {
    if (this.worker) return this.worker;
    this.lockDuration = leaseMs;
    // No processor: jobs are fetched by hand; the stalled checker is what hands a dead gateway's jobs to us.
    this.worker = new Worker<JobData>('jobs', null, {
      connection: this.client,
      prefix: this.prefix,
      autorun: false,
      lockDuration: leaseMs,
      // A job is moved back to waiting by the second check after its lock expired: with a short lease the
      // checks must be as frequent, or the check interval, not the lease, decides how long a takeover takes.
      stalledInterval: this.options.stalledIntervalMs ?? Math.min(5000, leaseMs),
      maxStalledCount: this.options.maxStalledCount ?? 10,
    });
    this.worker.on('error', () => undefined); // connection errors surface through the calls that failed
    void this.worker.startStalledCheckTimer();
    return this.worker;
  }

  async lease(owner: string, leaseMs: number): Promise<Job | undefined> {
    const worker = this.ensureWorker(leaseMs);
    const token = `${owner}:${randomUUID()}`;
    const job = (await worker.getNextJob(token, { block: false })) as BullJob<JobData> | undefined;
    if (!job) return undefined;
    if (leaseMs !== this.lockDuration) await job.extendLock(token, leaseMs);
    this.leased.set(String(job.id), { job, token });
    await job.updateData({ ...job.data, attempts: (job.data.attempts ?? 0) + 1, updatedAt: Date.now() });
    return this.toJob(job, 'active');
  }

  async renew(jobId: string, owner: string, leaseMs: number): Promise<boolean> {
    const held = this.leased.get(jobId);
    if (!held || !held.token.startsWith(`${owner}:`)) return false;
    try {
      return Number(await held.job.extendLock(held.token, leaseMs)) === 1;
    } catch {
      return false;
    }
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

  async complete(jobId: string, receipt: unknown): Promise<void> {
    const { job, token } = await this.load(jobId);
    await job.updateData({ ...job.data, updatedAt: Date.now() });
    await job.moveToCompleted(receipt ?? {}, token ?? '0', false);
    this.leased.delete(jobId);
  }

  async fail(jobId: string, error: JobError, retryAt: number | null): Promise<void> {
    const { job, token } = await this.load(jobId);
    const now = Date.now();
    await job.updateData({ ...job.data, errors: [...(job.data.errors ?? []), error], runAt: retryAt ?? now, updatedAt: now });
    if (retryAt === null) await job.moveToFailed(new Error(error.message), token ?? '0', false);
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

  async findByDeliveryId(deliveryId: string): Promise<Job | undefined> {
    const id = await this.client.get(this.deliveryKey(deliveryId));
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

  async close(): Promise<void> {
    await this.worker?.close(true);
    await this.queue.close();
  }
}
