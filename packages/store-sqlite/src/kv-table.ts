// One key-value table in SQLite: (key, value text, expires_at in ms, NULL for kept until overwritten or deleted).
// The delivery progress and the plugins' memos are both such a table; each store keeps its own value encoding.
import type { Database, Statement } from 'better-sqlite3';
import type { WriteBatch } from './write-batch';

export class SqliteKvTable {
  private readonly getStmt: Statement;
  private readonly setStmt: Statement;
  private readonly deleteStmt: Statement;
  private readonly purgeStmt: Statement;

  constructor(
    db: Database,
    table: 'memos' | 'progress',
    private readonly writes: WriteBatch,
    private readonly now: () => number,
  ) {
    this.getStmt = db.prepare(`SELECT value FROM ${table} WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)`).pluck();
    this.setStmt = db.prepare(`
      INSERT INTO ${table} (key, value, expires_at) VALUES (?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`);
    this.deleteStmt = db.prepare(`DELETE FROM ${table} WHERE key = ?`);
    this.purgeStmt = db.prepare(`DELETE FROM ${table} WHERE expires_at <= ?`);
  }

  /** The value of `key` unless it has expired. */
  get(key: string): string | undefined {
    return this.getStmt.get(key, this.now()) as string | undefined;
  }

  /** Through the write batch, so the row is committed (and durable) before the caller goes on, e.g. sends the next part. */
  async set(key: string, value: string, ttlMs: number | undefined): Promise<void> {
    await this.writes.run(() => this.setStmt.run(key, value, ttlMs === undefined ? null : this.now() + ttlMs));
  }

  /**
   * Writes only when the value of `key` (undefined: none, or expired) is `expected`; returns whether it wrote. The
   * read and the write are one operation of the write batch, whose IMMEDIATE transaction holds the file's write lock
   * from before the read: no other connection, in this process or another, writes between them.
   */
  compareAndSet(key: string, expected: string | undefined, value: string, ttlMs: number | undefined): Promise<boolean> {
    return this.writes.run(() => {
      const now = this.now();
      if ((this.getStmt.get(key, now) as string | undefined) !== expected) return false;
      this.setStmt.run(key, value, ttlMs === undefined ? null : now + ttlMs);
      return true;
    });
  }

  async delete(key: string): Promise<void> {
    await this.writes.run(() => this.deleteStmt.run(key));
  }

  /** Drops expired entries; called with the store's other purges. */
  purge(): Promise<number> {
    return this.writes.run(() => this.purgeStmt.run(this.now()).changes);
  }
}
