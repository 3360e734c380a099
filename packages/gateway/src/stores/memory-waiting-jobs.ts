// The memory queue's pending jobs in lease order: due jobs by waiting order, delayed ones by retry time.
import type { Job } from '@hookwise/core';
import { EntryHeap, type WaitingEntry } from './memory-entry-heap';

const waitedLonger = (a: WaitingEntry, b: WaitingEntry): boolean => a.seq < b.seq;
const dueSooner = (a: WaitingEntry, b: WaitingEntry): boolean => a.job.runAt < b.job.runAt || (a.job.runAt === b.job.runAt && a.seq < b.seq);

/**
 * The pending jobs. `lease()` takes, among the jobs due (`runAt <= now`), the one that started waiting first; a
 * retry that started waiting before a newer job goes first once both are due, whatever their retry times.
 * Two heaps keep that cheap with many delayed retries: `delayed` by retry time, and `due` by waiting order, which
 * the delayed jobs join as their time comes. Neither a lease nor the next wake-up time walks the waiting jobs.
 */
export class WaitingJobs {
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

  /**
   * A delayed job's `runAt` was moved to now (JobQueue.makeDue): it joins the due jobs with its place in the waiting
   * order. A parked job is due already, and a job not waiting here has nothing to move.
   */
  rescheduled(jobId: string): void {
    const entry = this.entries.get(jobId);
    if (entry && this.delayed.remove(entry)) this.pushDue(entry);
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
