// Which job a lease takes in the SQLite queue: the first due waiting job, else a running job whose lease ran
// out or whose gateway stopped beating, passing jobs whose concurrency key is busy.
import type { InstanceHeartbeat } from './heartbeat';
import type { Candidate } from './job-row';
import type { JobStatements } from './job-statements';

export class LeasePicker {
  /**
   * The watermark of jobs that never left the queue (schema 5): none is waiting at or below this seq, so they
   * are found in seq order above it, without an index entry each. Read from queue_marks on first use; back to
   * its value at the start of a transaction that fails.
   */
  private freshMark?: number;
  private freshMarkAtTransactionStart?: number;
  private freshMarkSavedAt = 0;

  constructor(
    private readonly stmt: JobStatements,
    private readonly heartbeat: InstanceHeartbeat,
    private readonly clock: { now: () => number },
  ) {}

  /** A transaction of the queue began: a watermark it moves goes back if it fails. */
  transactionStarted(): void {
    this.freshMarkAtTransactionStart = this.freshMark;
  }

  transactionCommitted(): void {
    this.saveFreshMark();
  }

  transactionDiscarded(): void {
    this.freshMark = this.freshMarkAtTransactionStart;
  }

  /**
   * The waiting job to run next, inside the lease's operation: the earlier by (run_at, seq) of the first job
   * above the watermark that never left the queue and the first put-back (or coalescing) job that is due,
   * passing those whose concurrency key is busy (keys found busy are remembered in `busyKeys`). The watermark moves up to the job taken when it is the first
   * above the mark, or to the top of the table when no such job is left: nothing waiting can be below it
   * afterwards, since a new job gets a seq above every row (the top row is never purged) and a job that goes
   * back to the queue is marked requeued. A passed job keeps the mark below it. Moves made by a transaction
   * that fails are undone (transactionDiscarded).
   */
  dueNow(now: number, busyKeys: Set<string>): Candidate | undefined {
    this.freshMark ??= (this.stmt.readMark.get() as number | undefined) ?? 0;
    let fresh = this.stmt.fresh.get(this.freshMark) as Candidate | undefined;
    const firstFresh = fresh?.seq;
    this.freshMark = fresh ? fresh.seq - 1 : (this.stmt.maxSeq.get() as number);
    let requeued = this.stmt.requeuedDue.get({ now, afterRunAt: Number.MIN_SAFE_INTEGER, afterSeq: 0 }) as Candidate | undefined;
    for (;;) {
      const freshFirst =
        fresh !== undefined &&
        fresh.run_at <= now &&
        (!requeued || fresh.run_at < requeued.run_at || (fresh.run_at === requeued.run_at && fresh.seq < requeued.seq));
      const pick = freshFirst ? fresh : requeued;
      if (!pick) return undefined;
      if (!this.keyBusyNow(pick, now, busyKeys)) {
        if (pick.seq === firstFresh) this.freshMark = pick.seq;
        return pick;
      }
      if (freshFirst) fresh = this.stmt.fresh.get(pick.seq) as Candidate | undefined;
      else requeued = this.stmt.requeuedDue.get({ now, afterRunAt: pick.run_at, afterSeq: pick.seq }) as Candidate | undefined;
    }
  }

  /** A running job whose lease ran out or whose gateway stopped beating, unless its concurrency key is busy meanwhile. */
  orphanNow(now: number, busyKeys: Set<string>): Candidate | undefined {
    const stale = now - this.heartbeat.staleAfterMs;
    let after: Pick<Candidate, 'run_at' | 'seq'> = { run_at: Number.MIN_SAFE_INTEGER, seq: 0 };
    for (;;) {
      const orphan = this.stmt.orphan.get({ now, stale, afterRunAt: after.run_at, afterSeq: after.seq }) as Candidate | undefined;
      if (!orphan || !this.keyBusyNow(orphan, now, busyKeys)) return orphan;
      after = orphan;
    }
  }

  /**
   * Whether another job of the candidate's route and concurrency key runs under a live lease (core's
   * JobInput.concurrencyKey); keys found busy are remembered for the rest of the lease in `busyKeys`.
   */
  private keyBusyNow(candidate: Candidate, now: number, busyKeys: Set<string>): boolean {
    if (candidate.concurrency_key === null) return false;
    const slot = `${candidate.route}\u0000${candidate.concurrency_key}`;
    if (busyKeys.has(slot)) return true;
    const busy = this.stmt.keyBusy.get({ route: candidate.route, key: candidate.concurrency_key, now, stale: now - this.heartbeat.staleAfterMs }) !== undefined;
    if (busy) busyKeys.add(slot);
    return busy;
  }

  /** Stores the watermark for the next process to open the file (at most once a second: it is only a shortcut). */
  private saveFreshMark(): void {
    if (this.freshMark === undefined || this.freshMark === this.freshMarkAtTransactionStart) return;
    const at = this.clock.now();
    if (at - this.freshMarkSavedAt < 1000) return;
    this.stmt.saveMark.run(this.freshMark);
    this.freshMarkSavedAt = at;
  }
}
