// The lease loop: takes jobs from the queue while there is room (woken by new jobs and by a poll), keeps each
// running job's lease renewed, reports whether leasing works, and at stop hands back what did not finish.
import type { Logger } from 'winston';
import type { Job, JobQueue } from '@hookwise/core';
import { HookwiseError, errorMessage } from '@hookwise/core';
import type { StoreStatus } from '../observe/store-status';

export interface LeaseLoopOptions {
  jobs: JobQueue;
  /** Who holds the leases (one per worker pool). */
  owner: string;
  leaseMs: number;
  pollMs: number;
  concurrency: number;
  logger: Logger;
  storeStatus?: StoreStatus;
  /** Runs one leased job; its controller is aborted when stop() hands the job back. */
  run(job: Job, controller: AbortController): Promise<void>;
}

export class LeaseLoop {
  private running = false;
  private pumping = false;
  /**
   * A wake-up (onReady) came while a pump was under way: that pump's lease may have looked before the job was due
   * (a makeDue, a release), so one more pump follows it instead of leaving the job to the next poll.
   */
  private wokenWhilePumping = false;
  private readonly active = new Map<string, AbortController>();
  private idle: Array<() => void> = [];
  private unsubscribe?: () => void;
  private poller?: NodeJS.Timeout;
  /** The last lease failure's message while leasing fails; undefined while it works. */
  private leaseProblem?: string;

  constructor(private readonly options: LeaseLoopOptions) {}

  get inFlight(): number {
    return this.active.size;
  }

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.options.jobs.onReady?.(() => this.pump());
    this.poller = setInterval(() => this.pump(), this.options.pollMs);
    this.poller.unref();
    this.pump();
  }

  /** Takes jobs while there is room; one pump at a time so that concurrency is never exceeded. */
  pump(): void {
    const { jobs, concurrency } = this.options;
    // At capacity there is nothing to take: every accepted job announces itself, so this is the common case under load.
    if (!this.running || this.active.size >= concurrency) return;
    if (this.pumping) {
      this.wokenWhilePumping = true;
      return;
    }
    this.wokenWhilePumping = false;
    this.pumping = true;
    void (async () => {
      try {
        while (this.running && this.active.size < concurrency) {
          const job = await jobs.lease(this.options.owner, this.options.leaseMs);
          this.leaseWorked();
          if (!job) break;
          const controller = new AbortController();
          this.active.set(job.id, controller);
          void this.options.run(job, controller).finally(() => {
            this.active.delete(job.id);
            if (this.active.size === 0) for (const resolve of this.idle.splice(0)) resolve();
            this.pump();
          });
        }
      } catch (err) {
        this.leaseFailed(err);
      } finally {
        this.pumping = false;
      }
      if (this.wokenWhilePumping && this.leaseProblem === undefined) this.pump();
    })();
  }

  /** Stops taking jobs, lets running ones finish until the deadline, then aborts and hands back the rest. */
  async stop(deadlineMs: number): Promise<{ unfinished: string[] }> {
    this.running = false;
    this.unsubscribe?.();
    if (this.poller) clearInterval(this.poller);
    if (this.active.size > 0) {
      await Promise.race([new Promise<void>((r) => this.idle.push(r)), new Promise((r) => setTimeout(r, deadlineMs).unref())]);
    }
    const unfinished = [...this.active.keys()];
    for (const [id, controller] of this.active) {
      controller.abort(new HookwiseError('HW_E_SHUTTING_DOWN', 'gateway shutting down'));
      await this.options.jobs.release(id).catch(() => undefined);
    }
    return { unfinished };
  }

  /**
   * A failing store fails every poll (once a second): the first failure is logged, repeats only when the reason
   * changes, and the recovery once, so that a store locked for an hour does not write 3,600 identical lines.
   */
  private leaseFailed(err: unknown): void {
    const message = errorMessage(err);
    this.options.storeStatus?.failed('lease', message);
    if (message === this.leaseProblem) return;
    this.leaseProblem = message;
    this.options.logger.error(`worker could not lease a job: ${message}; retrying every poll (this line repeats only when the reason changes)`);
  }

  private leaseWorked(): void {
    this.options.storeStatus?.succeeded('lease');
    if (this.leaseProblem === undefined) return;
    this.leaseProblem = undefined;
    this.options.logger.info('worker: the store answers again; leasing jobs');
  }
}

/**
 * Renews a running job's lease at a third of its length (at least every second), so that no other worker takes it
 * over while it runs; a failed renewal is left to the next one. Returns what stops the renewal.
 */
export function keepLeased(jobs: JobQueue, jobId: string, owner: string, leaseMs: number): () => void {
  const renew = setInterval(
    () => {
      void jobs.renew(jobId, owner, leaseMs).catch(() => undefined);
    },
    Math.max(1000, Math.floor(leaseMs / 3)),
  );
  renew.unref();
  return () => clearInterval(renew);
}
