// Grouped commits: writes issued in the same event-loop turn share one transaction (and one commit).
import type { Database } from 'better-sqlite3';

interface Pending {
  op: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
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
 */
export class WriteBatch {
  private queue: Pending[] = [];
  private scheduled = false;
  private hooks: TransactionHook[] = [];
  private readonly transaction: { immediate: (ops: Array<() => unknown>) => unknown[] };

  constructor(db: Database, private readonly maxBatch = 500) {
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

  run<T>(op: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ op, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  /** Called by an operation while it runs: `hook` finishes (or is discarded) with the current transaction. */
  hook(hook: TransactionHook): void {
    this.hooks.push(hook);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Commits what is queued now; also called synchronously by close() so nothing queued is lost. */
  flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      let values: unknown[];
      try {
        values = this.inTransaction(batch.map((item) => item.op));
      } catch (err) {
        if (batch.length === 1) batch[0].reject(err);
        else this.oneByOne(batch);
        continue;
      }
      batch.forEach((item, i) => item.resolve(values[i]));
    }
  }

  /** The slow path after a failed batch: every operation in its own transaction. */
  private oneByOne(batch: Pending[]): void {
    for (const item of batch) {
      try {
        item.resolve(this.inTransaction([item.op])[0]);
      } catch (err) {
        item.reject(err);
      }
    }
  }

  get size(): number {
    return this.queue.length;
  }
}
