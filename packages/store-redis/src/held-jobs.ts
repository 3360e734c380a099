// The jobs this process holds in the Redis store, and the timer that keeps their locks alive while their leases hold.
import type { Job as BullJob } from 'bullmq';
import { blockedKey, runningKey, type JobData } from './job-data';
import type { LeaseScripts } from './lease-scripts';

/** A job this process holds: the bullmq job, the lock token of the lease, and when the lease runs out (local epoch ms). */
export interface Held {
  job: BullJob<JobData>;
  token: string;
  leaseUntil: number;
}

/** The lock of a job's (route, concurrency key) and the list of jobs waiting for it; undefined for a job without a key. */
export function keyLockOf(prefix: string, data: JobData): { lock: string; blocked: string } | undefined {
  if (data.concurrencyKey === undefined) return undefined;
  return { lock: runningKey(prefix, data.route, data.concurrencyKey), blocked: blockedKey(prefix, data.route, data.concurrencyKey) };
}

/** The held jobs by id; `renewEvery` starts the lock timer (see RedisJobQueue for the two clocks). */
export class HeldJobs {
  private readonly held = new Map<string, Held>();
  private lockTimer?: NodeJS.Timeout;
  private renewingLocks = false;

  constructor(
    private readonly prefix: string,
    private readonly lockMs: number,
    private readonly leaseScripts: LeaseScripts,
  ) {}

  get(jobId: string): Held | undefined {
    return this.held.get(jobId);
  }

  set(jobId: string, held: Held): void {
    this.held.set(jobId, held);
  }

  delete(jobId: string): void {
    this.held.delete(jobId);
  }

  renewEvery(ms: number): void {
    this.lockTimer = setInterval(() => void this.renewLocks(), ms);
    this.lockTimer.unref();
  }

  stop(): void {
    if (this.lockTimer) clearInterval(this.lockTimer);
  }

  /** The lock for a lease that runs `leaseLeftMs` more: the usual short lock, never outlasting the lease. */
  lockFor(leaseLeftMs: number): number {
    return Math.max(1, Math.min(this.lockMs, Math.floor(leaseLeftMs)));
  }

  /** Extends a held job's bullmq lock and its key lock; false when the bullmq lock is gone or another's. */
  async extendLocks(held: Held, ms: number): Promise<boolean | undefined> {
    const keyLock = keyLockOf(this.prefix, held.job.data);
    const [extended] = await Promise.all([
      held.job.extendLock(held.token, ms),
      keyLock ? this.leaseScripts.extend(keyLock.lock, String(held.job.id), ms) : undefined,
    ]);
    return Number(extended) === 1;
  }

  /** The lock timer: extends the locks of each held job whose lease holds; a job whose lock was lost is given up. */
  private async renewLocks(): Promise<void> {
    if (this.renewingLocks) return; // Redis is slow: the previous round is still under way
    this.renewingLocks = true;
    try {
      const now = Date.now();
      const live = [...this.held.values()].filter((held) => held.leaseUntil > now);
      await Promise.all(
        live.map(async (held) => {
          const extended = await this.extendLocks(held, this.lockFor(held.leaseUntil - now)).catch(() => undefined);
          // false: the lock is gone or another's (finished, or taken over after a stall); undefined: Redis unreachable, try again.
          if (extended === false) held.leaseUntil = 0;
        }),
      );
    } finally {
      this.renewingLocks = false;
    }
  }
}
