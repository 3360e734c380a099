// The job queue on bullmq: manual fetching with a token per lease, a short self-renewed lock, stalled-job takeover,
// coalescing (in the accept script) and per-key serial execution (a lock per route and concurrency key).
import { randomUUID } from 'node:crypto';
import type { AgentUsage, DestinationState, EnqueueHints, Job, JobError, JobFilter, JobInput, JobOutcome, JobQueue, JobStatus } from '@hookwise/core';
import { Job as BullJob, Queue, Worker, type JobJsonRaw } from 'bullmq';
import type { Redis } from 'ioredis';
import { AcceptScript, packAccept, type AcceptAnswer, type JobArgs } from './accept-scripts';
import { STATES, toJob } from './bull-job';
import { DeliveryLookups, LIVE_LOOKUP_MS } from './delivery-lookups';
import { HeldJobs, keyLockOf } from './held-jobs';
import { coalescePointerKey, deliveryIdsOf, jobArgs, type JobData } from './job-data';
import { LeaseScripts, type GateKeys } from './lease-scripts';
import { DelayedJobs } from './make-due';

/**
 * A job whose concurrency key is held by a running job goes back to the delayed set for this long (its attempt
 * not counted). The usual wake-up is sooner: the key's release moves its oldest waiting job to the front.
 */
export const KEY_BUSY_RETRY_MS = 500;
/** How many jobs whose key is busy one lease passes over before it answers that nothing is due. */
const MAX_BUSY_SKIPS = 20;

export interface RedisJobQueueOptions {
  /**
   * The bullmq lock on a held job (default 5 s). This store renews it itself while the job's lease holds, so
   * it only runs out when the holding process is gone (or stalled this long): a killed gateway's jobs are
   * taken over about this long after its death, whatever `store.lease_seconds` says. A job's concurrency-key
   * lock has the same length and is renewed with it.
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

/**
 * Two clocks guard a held job. The lease (`leaseMs`, from `store.lease_seconds`) is the owner's promise to renew;
 * the bullmq lock (`lockMs`, a few seconds) is what other gateways see. A timer in this process extends the lock
 * of every held job whose lease still holds, never past the lease's end. So:
 * - a live gateway keeps a long-running job indefinitely (its worker renews the lease, the timer the lock);
 * - a killed gateway renews nothing: its locks lapse within `lockMs` and the stalled check hands the jobs on;
 * - an owner that stops renewing loses the job when its lease runs out, as with the other stores.
 * A job with a concurrency key also holds `<prefix>:running:<route>:<key>` on the same terms (see lease-scripts.ts).
 */
export class RedisJobQueue implements JobQueue {
  readonly queue: Queue<JobData>;
  readonly lookups: DeliveryLookups;
  /** The accept script, shared with the store's acceptor (see accept-scripts.ts). */
  readonly acceptScript: AcceptScript;
  private readonly leaseScripts: LeaseScripts;
  private worker?: Worker<JobData>;
  private readonly lockMs: number;
  private readonly doneRetentionMs: number;
  private readonly leased: HeldJobs;
  private readonly delayed: DelayedJobs;
  private readonly readyListeners = new Set<() => void>();
  /** bullmq's `queue.toKey('')`: a job's hash is this plus its id. */
  readonly jobKeyPrefix: string;

  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
    private readonly options: RedisJobQueueOptions = {},
  ) {
    this.queue = new Queue<JobData>('jobs', { connection: client, prefix });
    this.lockMs = options.lockMs ?? 5000;
    this.doneRetentionMs = options.doneRetentionMs ?? 7 * 24 * 3600 * 1000;
    this.lookups = new DeliveryLookups(client, prefix);
    this.jobKeyPrefix = this.queue.toKey('');
    this.acceptScript = new AcceptScript(client, this.jobKeyPrefix);
    this.leaseScripts = new LeaseScripts(client);
    this.leased = new HeldJobs(prefix, this.lockMs, this.leaseScripts);
    this.delayed = new DelayedJobs(client, this.jobKeyPrefix, async (id) => (await BullJob.fromId(this.queue, id)) as BullJob<JobData> | undefined);
  }

  /** The job's pieces for the accept script, under a new job id. */
  jobArgs(input: JobInput, hints?: EnqueueHints): JobArgs {
    return jobArgs(input, hints, randomUUID(), Math.round(this.doneRetentionMs / 1000), Date.now());
  }

  /** The key the accept script reads and writes for the job's coalescing (a placeholder no one writes when it does not coalesce). */
  pointerKey(input: JobInput): string {
    return input.coalesce ? coalescePointerKey(this.prefix, input.route, input.coalesce.key) : `${this.prefix}:no-coalescing`;
  }

  /**
   * The accept script without a claim, rate hit or backpressure: the job and its delivery-id lookup in one atomic
   * step, or the event merged into the route's open coalescing job (returned then, with the event in it).
   */
  async enqueue(input: JobInput, hints?: EnqueueHints): Promise<Job> {
    const answer = await this.acceptScript.run(
      packAccept(
        { claim: `${this.prefix}:no-claim`, lookup: this.lookups.key(input.deliveryId), rateBase: `${this.prefix}:no-rate`, pointer: this.pointerKey(input) },
        { mode: 'enqueue', rateLimit: 0, maxPending: 0, pendingClaimMs: 0 },
        this.jobArgs(input, hints),
      ),
    );
    const jobId = this.stored(answer);
    this.wake();
    const job = await this.get(jobId);
    if (!job) throw new Error(`job ${jobId} was stored in Redis but is gone (was the key prefix cleared?)`);
    return job;
  }

  /** The job id an accept script's answer names (an enqueue answers nothing else). */
  private stored(answer: AcceptAnswer): string {
    if (answer[0] !== 'accepted' && answer[0] !== 'coalesced') throw new Error(`unexpected answer from the Redis accept script: ${answer[0]}`);
    return answer[1];
  }

  /** Local wake-up after the acceptor stored a job. */
  added(): void {
    this.wake();
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
    // again): a dead letter, whose lookups are kept for good like the ones `fail` makes.
    this.worker.on('failed', (job) => {
      if (job) void this.keepLookupsForever(job.data, String(job.id)).catch(() => undefined);
    });
    void this.worker.startStalledCheckTimer();
    this.leased.renewEvery(this.options.lockRenewMs ?? Math.floor(this.lockMs / 5));
    return this.worker;
  }

  /**
   * Takes the next job bullmq hands out, then passes it through the lease gate (lease-scripts.ts): its coalesce
   * pointer goes (it takes no more events), and a job whose concurrency key another running job holds goes back
   * to the delayed set for KEY_BUSY_RETRY_MS, its attempt not counted, while the lease looks at the next job.
   */
  async lease(owner: string, leaseMs: number): Promise<Job | undefined> {
    const worker = this.ensureWorker();
    for (let skipped = 0; skipped < MAX_BUSY_SKIPS; skipped += 1) {
      const token = `${owner}:${randomUUID()}`;
      const leaseUntil = Date.now() + leaseMs;
      const job = (await worker.getNextJob(token, { block: false })) as BullJob<JobData> | undefined;
      if (!job) return undefined;
      const id = String(job.id);
      const { note: _cleared, ...data } = job.data;
      const leasedData: JobData = { ...data, attempts: (data.attempts ?? 0) + 1, updatedAt: Date.now() };
      const keyLock = keyLockOf(this.prefix, data);
      const keys: GateKeys = {
        pointer: data.coalesceKey !== undefined ? coalescePointerKey(this.prefix, data.route, data.coalesceKey) : `${this.prefix}:no-coalescing`,
        lock: keyLock?.lock ?? `${this.prefix}:no-key-lock`,
        blocked: keyLock?.blocked ?? `${this.prefix}:no-key-lock`,
        job: this.jobKeyPrefix + id,
      };
      const gate = await this.leaseScripts.gate(keys, id, this.leased.lockFor(leaseMs), JSON.stringify(leasedData), data.createdAt ?? 0, keyLock !== undefined);
      if (gate === 0) {
        await job.moveToDelayed(Date.now() + KEY_BUSY_RETRY_MS, token);
        continue;
      }
      if (gate < 0) continue;
      job.data = leasedData;
      if (leaseMs < this.lockMs) await job.extendLock(token, this.leased.lockFor(leaseMs));
      this.leased.set(id, { job, token, leaseUntil });
      return toJob(job, 'active');
    }
    return undefined;
  }

  /** Extends the lease; the lock timer then keeps the locks alive until the new end. */
  async renew(jobId: string, owner: string, leaseMs: number): Promise<boolean> {
    const held = this.leased.get(jobId);
    if (!held || !held.token.startsWith(`${owner}:`)) return false;
    const leaseUntil = Date.now() + leaseMs;
    try {
      if (!(await this.leased.extendLocks(held, this.leased.lockFor(leaseMs)))) return false;
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

  /** Gives up the job's key lock (if it holds it); the key's oldest waiting job becomes the next job. */
  private async releaseKeyLock(job: BullJob<JobData>): Promise<void> {
    const keyLock = keyLockOf(this.prefix, job.data);
    if (!keyLock) return;
    await this.leaseScripts.release(keyLock.lock, keyLock.blocked, String(job.id), this.jobKeyPrefix);
    this.wake();
  }

  /** The first delivery attempt runs at once under the same lease, so the delivery step starts at attempt 1. */
  async saveAnswer(jobId: string, prompt: string, answer: string, usage?: AgentUsage): Promise<void> {
    const { job } = await this.load(jobId);
    await job.updateData({ ...job.data, prompt, answer, ...(usage ? { usage } : {}), step: 'deliver', attempts: 1, updatedAt: Date.now() });
  }

  async saveDestinations(jobId: string, destinations: DestinationState[]): Promise<void> {
    const { job } = await this.load(jobId);
    await job.updateData({ ...job.data, destinations, updatedAt: Date.now() });
  }

  private async keepLookupsForever(data: JobData, jobId: string): Promise<void> {
    await Promise.all(deliveryIdsOf(data).map((id) => this.lookups.keepForever(id, jobId)));
  }

  private async expireLookupsIn(data: JobData, jobId: string, ttlMs: number): Promise<void> {
    await Promise.all(deliveryIdsOf(data).map((id) => this.lookups.expireIn(id, jobId, ttlMs)));
  }

  /**
   * Moves a job to the dead letters. Its lookups are made permanent first: a crash in between leaves a live job
   * with permanent lookups, which its completion or death sets right, never a dead letter whose lookup expires.
   */
  private async bury(job: BullJob<JobData>, token: string, reason: string): Promise<void> {
    await this.keepLookupsForever(job.data, String(job.id));
    await job.moveToFailed(new Error(reason), token, false);
  }

  /** The lookups get the done retention before the job is done (a crash in between leaves a job that runs again). */
  async complete(jobId: string, receipt: unknown, ending?: { outcome: JobOutcome; note?: string }): Promise<void> {
    const { job, token } = await this.load(jobId);
    const { note: _old, ...data } = job.data;
    await job.updateData({ ...data, ...(ending ? { outcome: ending.outcome } : {}), ...(ending?.note ? { note: ending.note } : {}), updatedAt: Date.now() });
    await this.expireLookupsIn(job.data, jobId, this.doneRetentionMs);
    await job.moveToCompleted(receipt ?? {}, token ?? '0', false);
    this.leased.delete(jobId);
    await this.releaseKeyLock(job);
  }

  async fail(jobId: string, error: JobError, retryAt: number | null): Promise<void> {
    const { job, token } = await this.load(jobId);
    const now = Date.now();
    await job.updateData({ ...job.data, errors: [...(job.data.errors ?? []), error], runAt: retryAt ?? now, updatedAt: now });
    if (retryAt === null) await this.bury(job, token ?? '0', error.message);
    else await job.moveToDelayed(retryAt, token ?? '0');
    this.leased.delete(jobId);
    await this.releaseKeyLock(job);
  }

  /** Back to waiting (due at once), or with a hold to the delayed set until `hold.runAt` with its note; the attempt is not counted. */
  async release(jobId: string, hold?: { runAt: number; note: string }): Promise<void> {
    const held = this.leased.get(jobId);
    if (!held) return;
    const { job, token } = held;
    const attempts = Math.max(0, (job.data.attempts ?? 1) - 1);
    const now = Date.now();
    if (hold) {
      await job.updateData({ ...job.data, attempts, note: hold.note, runAt: hold.runAt, updatedAt: now });
      await job.moveToDelayed(hold.runAt, token);
    } else {
      await job.updateData({ ...job.data, attempts, updatedAt: now });
      await job.moveToWait(token);
    }
    this.leased.delete(jobId);
    await this.releaseKeyLock(job);
    this.wake();
  }

  async retryDead(jobId: string): Promise<boolean> {
    const job = (await BullJob.fromId(this.queue, jobId)) as BullJob<JobData> | undefined;
    if (!job || (await job.getState()) !== 'failed') return false;
    const now = Date.now();
    await job.updateData({ ...job.data, attempts: 0, runAt: now, updatedAt: now });
    await job.retry('failed');
    // After the retry: a crash in between leaves a live job whose lookups are permanent, not a dead letter whose expire.
    await this.expireLookupsIn(job.data, jobId, LIVE_LOOKUP_MS);
    this.wake();
    return true;
  }

  /** Wakes this process's idle workers; other gateways find the job at their next poll. */
  async makeDue(jobId: string): Promise<boolean> {
    const pending = await this.delayed.makeDue(jobId);
    if (pending) this.wake();
    return pending;
  }

  async pendingCount(): Promise<number> {
    const counts = await this.queue.getJobCounts(...STATES.pending, ...STATES.running);
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  }

  async get(id: string): Promise<Job | undefined> {
    const job = (await BullJob.fromId(this.queue, id)) as BullJob<JobData> | undefined;
    if (!job) return undefined;
    return toJob(job, await job.getState());
  }

  /** A lookup naming a job that does not exist (removed after its retention) means no job. */
  async findByDeliveryId(deliveryId: string): Promise<Job | undefined> {
    const id = await this.lookups.jobIdOf(deliveryId);
    return id ? this.get(id) : undefined;
  }

  async list(filter: JobFilter = {}): Promise<Job[]> {
    const statuses = filter.status ? [filter.status] : (Object.keys(STATES) as JobStatus[]);
    const types = statuses.flatMap((status) => STATES[status].map((type) => ({ type, status })));
    // Without a route filter the newest `limit` of each state are enough; with one, all must be looked at.
    const end = filter.limit && !filter.route ? filter.limit - 1 : -1;
    // One script reads every state (bullmq's getJobs, whose answer it splits by state): a job that changes state
    // meanwhile is in exactly one of them, where reading them one by one would list it twice or not at all.
    const byType = await this.queue.scripts.getJobs(
      types.map((t) => t.type),
      0,
      end,
      false,
    );
    const seen = new Set<string>();
    const out: Job[] = [];
    byType.forEach((jobs, i) => {
      for (const [id, fields] of jobs ?? []) {
        const job = BullJob.fromJSON<JobData>(this.queue, hashOf(fields), id);
        if (seen.has(id) || !job.data || (filter.route && job.data.route !== filter.route)) continue;
        seen.add(id);
        out.push(toJob(job, STATES[types[i].status][0]));
      }
    });
    const newestFirst = out.sort((a, b) => b.createdAt - a.createdAt);
    return newestFirst.slice(0, filter.limit ?? newestFirst.length);
  }

  /**
   * Done jobs (bullmq's completed set, scored by when they finished) that finished before `finishedBefore`, removed
   * or counted. Their delivery-id lookups are left to expire: a lookup naming a removed job means no job.
   */
  async purgeFinished(finishedBefore: number, options: { dryRun?: boolean } = {}): Promise<number> {
    const completed = this.queue.toKey('completed');
    if (options.dryRun) return this.client.zcount(completed, '-inf', `(${finishedBefore}`);
    const ids = await this.client.zrangebyscore(completed, '-inf', `(${finishedBefore}`);
    let removed = 0;
    for (const id of ids) removed += await this.queue.remove(id);
    return removed;
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
    this.leased.stop();
    // bullmq drops its worker's listeners on close, so a blocking connection closed while it is still starting
    // rejects its start with no one to hear it (thrown as "Unhandled error. (Error: Connection is closed.)" into
    // whatever runs next): let it finish starting first. The store's close bounds this wait when Redis is gone.
    await this.worker?.waitUntilReady().catch(() => undefined);
    await this.worker?.close(true);
    await this.queue.close();
  }
}

/** A Redis hash as HGETALL lists it (field, value, field, value, ...) as an object. */
function hashOf(fields: string[]): JobJsonRaw {
  const hash: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) hash[fields[i]] = fields[i + 1];
  return hash as unknown as JobJsonRaw;
}
