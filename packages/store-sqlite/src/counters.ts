// Budget counters in SQLite (the counters table, schema 8): fixed windows shared by every gateway on the file.
import type { WindowCounters } from '@hookwise/core';
import type { Database, Statement } from 'better-sqlite3';
import type { WriteBatch } from './write-batch';

export class SqliteWindowCounters implements WindowCounters {
  private readonly addStmt: Statement;
  private readonly peekStmt: Statement;
  private readonly purgeStmt: Statement;

  constructor(
    db: Database,
    private readonly writes: WriteBatch,
    private readonly now: () => number,
  ) {
    // One statement: the window's row is created or added to, and its total read back, under the write lock.
    this.addStmt = db
      .prepare(
        `
      INSERT INTO counters (key, window_ms, window_start, value) VALUES (@key, @windowMs, @start, @amount)
      ON CONFLICT (key, window_ms, window_start) DO UPDATE SET value = value + excluded.value
      RETURNING value`,
      )
      .pluck();
    this.peekStmt = db.prepare('SELECT value FROM counters WHERE key = ? AND window_ms = ? AND window_start = ?').pluck();
    this.purgeStmt = db.prepare('DELETE FROM counters WHERE window_start + window_ms <= ?');
  }

  /**
   * A counter is its key and its window length; a window starts at a multiple of its length since the epoch
   * (core's WindowCounters). 0 peeks without writing.
   */
  async add(key: string, amount: number, windowMs: number): Promise<number> {
    const now = this.now();
    const start = now - (now % windowMs);
    if (amount === 0) return (this.peekStmt.get(key, windowMs, start) as number | undefined) ?? 0;
    return this.writes.run(() => this.addStmt.get({ key, windowMs, start, amount }) as number);
  }

  /** Drops ended windows; called with the store's other purges (every minute), never per call. */
  purge(): Promise<number> {
    return this.writes.run(() => this.purgeStmt.run(this.now()).changes);
  }
}
