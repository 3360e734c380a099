// Concurrency keys for the memory queue: at most one job per (route, key) runs under a live lease; due jobs of a
// busy key wait parked, keeping their places in the waiting order.
import type { Job } from '@hookwise/core';
import type { WaitingEntry } from './memory-entry-heap';
import { concurrencySlot } from './memory-job-keys';
import type { WaitingJobs } from './memory-waiting-jobs';

export class ConcurrencyKeys {
  // The running jobs per (route, key), and the due jobs parked while their key is busy (in waiting order). Both
  // stay empty for routes without a key, so the common lease pays one `size` check.
  private readonly runningByKey = new Map<string, Set<Job>>();
  private readonly parked = new Map<string, WaitingEntry[]>();

  /**
   * `leases` are the queue's live leases by job id, `waiting` its pending jobs; `wake` tells idle workers that
   * parked jobs may be leased now.
   */
  constructor(
    private readonly leases: ReadonlyMap<string, { readonly until: number }>,
    private readonly waiting: WaitingJobs,
    private readonly wake: () => void,
  ) {}

  startedRunning(job: Job): void {
    const slot = concurrencySlot(job);
    if (slot === undefined) return;
    const running = this.runningByKey.get(slot);
    if (running) running.add(job);
    else this.runningByKey.set(slot, new Set([job]));
  }

  /** A job of a busy concurrency key ended its run: the jobs parked behind it may be leased now, so workers wake. */
  leftRunning(job: Job): void {
    const slot = concurrencySlot(job);
    if (slot === undefined) return;
    const running = this.runningByKey.get(slot);
    running?.delete(job);
    if (running?.size === 0) this.runningByKey.delete(slot);
    if (this.parked.has(slot)) this.wake();
  }

  /** Whether the job may run now: it has no concurrency key, or no other job of its key runs under a live lease. */
  free(job: Job, now: number): boolean {
    const slot = concurrencySlot(job);
    return slot === undefined || !this.busy(slot, job, now);
  }

  /**
   * The first due job (in waiting order) whose concurrency key is free. Due jobs of a busy key are parked on the
   * way; parked jobs go back (to their old places in the order) once no job of their key runs under a live lease.
   */
  firstLeasable(now: number): Job | undefined {
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

  /** Whether another job of this (route, key) runs under a live lease. */
  private busy(slot: string, job: Job, now: number): boolean {
    for (const other of this.runningByKey.get(slot) ?? []) {
      if (other !== job && (this.leases.get(other.id)?.until ?? -Infinity) > now) return true;
    }
    return false;
  }

  private unparkFreed(now: number): void {
    for (const [slot, entries] of this.parked) {
      const first = entries[0];
      if (first && this.busy(slot, first.job, now)) continue;
      this.parked.delete(slot);
      for (const entry of entries) this.waiting.putBack(entry);
    }
  }
}
