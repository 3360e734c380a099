// Grouped commits: writes issued in the same event-loop turn share one transaction (and one commit).
import { HookwiseError, errorMessage } from '@hookwise/core';
import type { Database } from 'better-sqlite3';

interface Pending {
  op: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  /** Epoch ms after which a write lock held by someone else fails this operation instead of waiting longer. */
  deadline: number;
}

/**
 * How long one attempt may block the event loop waiting for another process's write lock (SQLite's
 * busy_timeout, set by the store). Kept to a few ms: better-sqlite3 is synchronous, so SQLite's own wait would
 * freeze every request, /health included (14.6 s). Longer waits happen between attempts, off the loop.
 */
export const BUSY_TIMEOUT_MS = 5;
/** Pause between attempts while the file is locked by someone else. */
export const BUSY_RETRY_MS = 25;
/** How long an operation waits for a lock held elsewhere unless it says otherwise (SQLite's old blocking default). */
export const DEFAULT_LOCK_WAIT_MS = 5000;

/** SQLITE_BUSY (another connection holds the lock) and its extended codes; SQLITE_LOCKED is the same within a process. */
export function isLockError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** How a store failure reads in a log line, an error or /health: the SQLite error code with its message. */
export function describeSqliteError(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  const message = errorMessage(err);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

/** What the batch knows of the file's state, for /health: the last commit's outcome. */
export interface WriteHealth {
  ok: boolean;
  reason?: string;
  since?: number;
}

/** Work an operation leaves for the end of its transaction: `finish` runs just before the commit, `discard` after a rollback (a failed commit included). */
export interface TransactionHook {
  finish(): void;
  discard(): void;
}

/**
 * Every write of the store goes through here. Under load, the requests of one turn (accepts, leases, answers)
 * are committed together, so a commit (and with `synchronous = FULL` its fsync) is paid once per batch instead
 * of once per write. The batch runs without a savepoint per operation (they cost more than most operations);
 * if one operation throws, the whole batch is rolled back and each operation is run again in a transaction of
 * its own, so the failing one fails alone. Operations must therefore only write through the database (or
 * through a TransactionHook), never keep side effects of a run that may be rolled back.
 * A promise resolves only after its operation is committed.
 *
 * When another process holds the write lock, an attempt gives up after BUSY_TIMEOUT_MS; the batch stays queued
 * and is tried again every BUSY_RETRY_MS (the event loop runs meanwhile), and each operation that reaches its
 * deadline fails with a retryable HW_E_STORE error: the pipeline answers 503 with Retry-After.
 */
export class WriteBatch {
  private queue: Pending[] = [];
  private scheduled = false;
  private retryTimer?: NodeJS.Timeout;
  private hooks: TransactionHook[] = [];
  private readonly transaction: { immediate: (ops: Array<() => unknown>) => unknown[] };
  private state: WriteHealth = { ok: true };

  constructor(
    db: Database,
    private readonly maxBatch = 500,
    private readonly now: () => number = Date.now,
  ) {
    // IMMEDIATE takes the write lock up front, so a read-then-write inside one operation is atomic even
    // when another process (the CLI, a second gateway) uses the same file.
    this.transaction = db.transaction((ops: Array<() => unknown>) => {
      const values = ops.map((op) => op());
      for (const hook of this.hooks) hook.finish();
      return values;
    });
  }

  /** One transaction over `ops`; its hooks are discarded when anything fails, the commit included. */
  private inTransaction(ops: Array<() => unknown>): unknown[] {
    try {
      return this.transaction.immediate(ops);
    } catch (err) {
      for (const hook of this.hooks) hook.discard();
      throw err;
    } finally {
      this.hooks = [];
    }
  }

  /**
   * Queues `op` for the next commit. `lockWaitMs`: how long it may wait, across attempts, while another process
   * holds the write lock (the request path passes a short wait; the default suits background work and the CLI).
   */
  run<T>(op: () => T, lockWaitMs = DEFAULT_LOCK_WAIT_MS): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ op, resolve: resolve as (value: unknown) => void, reject, deadline: this.now() + lockWaitMs });
      this.schedule();
    });
  }

  /** The last commit's outcome: failing while the file is locked elsewhere or broken, ok again after a commit. */
  health(): WriteHealth {
    return this.state;
  }

  /** Called by an operation while it runs: `hook` finishes (or is discarded) with the current transaction. */
  hook(hook: TransactionHook): void {
    this.hooks.push(hook);
  }

  private schedule(): void {
    // While waiting out someone else's lock, new work joins the queue for the next attempt.
    if (this.scheduled || this.retryTimer) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Commits what is queued now; also called synchronously by close() so nothing queued is lost. */
  flush(): void {
    this.scheduled = false;
    if (this.retryTimer) {
      clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
    }
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      let values: unknown[];
      try {
        values = this.inTransaction(batch.map((item) => item.op));
      } catch (err) {
        if (isLockError(err)) {
          this.waitForLock(batch, err);
          return;
        }
        this.failed(err);
        if (batch.length === 1) batch[0].reject(err);
        else this.oneByOne(batch);
        continue;
      }
      this.state = { ok: true };
      batch.forEach((item, i) => item.resolve(values[i]));
    }
  }

  /**
   * Another process holds the write lock: the operations past their deadline fail, the rest go back to the
   * front of the queue for the next attempt. Trying them one by one would only wait once per operation.
   */
  private waitForLock(batch: Pending[], err: unknown): void {
    this.failed(err, 'the SQLite file is locked by another process');
    const now = this.now();
    const waiting: Pending[] = [];
    for (const item of batch) {
      if (item.deadline > now) {
        waiting.push(item);
        continue;
      }
      item.reject(
        new HookwiseError('HW_E_STORE', `the SQLite store is locked by another process (${describeSqliteError(err)}); nothing was written, retry later`, {
          retryable: true,
          retryAfterSeconds: 5,
          cause: err,
        }),
      );
    }
    this.queue.unshift(...waiting);
    if (this.queue.length === 0) return;
    this.retryTimer = setTimeout(() => this.flush(), BUSY_RETRY_MS);
  }

  private failed(err: unknown, reason = `the SQLite store failed: ${describeSqliteError(err)}`): void {
    this.state = { ok: false, reason, since: this.state.ok ? this.now() : this.state.since };
  }

  /** The slow path after a failed batch: every operation in its own transaction. */
  private oneByOne(batch: Pending[]): void {
    for (const item of batch) {
      try {
        item.resolve(this.inTransaction([item.op])[0]);
        this.state = { ok: true };
      } catch (err) {
        item.reject(err);
      }
    }
  }

  /** The last flush, at close: what still waits for a lock held elsewhere fails now instead of being retried. */
  close(): void {
    this.flush();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    for (const item of this.queue.splice(0)) {
      item.reject(
        new HookwiseError('HW_E_STORE', 'the SQLite store was closed while another process held its write lock; this write was not made', { retryable: true }),
      );
    }
  }

  get size(): number {
    return this.queue.length;
  }
}
