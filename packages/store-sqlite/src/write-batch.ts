// Grouped commits: writes issued in the same event-loop turn share one transaction (and one fsync).
import type { Database } from 'better-sqlite3';

interface Pending {
  op: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Every write of the store goes through here. Under load, the requests of one turn (delivery-id claims,
 * rate-limit hits, enqueues) are committed together, so durability costs one fsync per batch instead of
 * one per write. Each operation runs in its own savepoint: one that throws is rolled back alone.
 * A promise resolves only after its batch is committed.
 */
export class WriteBatch {
  private queue: Pending[] = [];
  private scheduled = false;
  private readonly inSavepoint: (op: () => unknown) => unknown;
  private readonly inTransaction: { immediate: (batch: Pending[], outcomes: Array<{ ok: boolean; value: unknown }>) => void };

  constructor(private readonly db: Database, private readonly maxBatch = 500) {
    this.inSavepoint = db.transaction((op: () => unknown) => op());
    // IMMEDIATE takes the write lock up front, so a read-then-write inside one operation is atomic even
    // when another process (the CLI, a second gateway) uses the same file.
    this.inTransaction = db.transaction((batch: Pending[], outcomes: Array<{ ok: boolean; value: unknown }>) => {
      for (const item of batch) {
        try {
          outcomes.push({ ok: true, value: this.inSavepoint(item.op) });
        } catch (err) {
          outcomes.push({ ok: false, value: err });
        }
      }
    });
  }

  run<T>(op: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ op, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
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
      const outcomes: Array<{ ok: boolean; value: unknown }> = [];
      try {
        this.inTransaction.immediate(batch, outcomes);
      } catch (err) {
        // The commit itself failed (disk full, locked too long): nothing of this batch is stored.
        for (const item of batch) item.reject(err);
        continue;
      }
      batch.forEach((item, i) => (outcomes[i].ok ? item.resolve(outcomes[i].value) : item.reject(outcomes[i].value)));
    }
  }

  get size(): number {
    return this.queue.length;
  }
}
