// Delivery progress in SQLite (the progress table, schema 7): a half-sent answer resumes after a restart.
import type { ProgressKV } from '@hookwise/core';
import type { Database, Statement } from 'better-sqlite3';
import type { WriteBatch } from './write-batch';

export class SqliteProgressKV implements ProgressKV {
  private readonly getStmt: Statement;
  private readonly setStmt: Statement;
  private readonly deleteStmt: Statement;
  private readonly purgeStmt: Statement;

  constructor(
    db: Database,
    private readonly writes: WriteBatch,
    private readonly now: () => number,
  ) {
    this.getStmt = db.prepare('SELECT value FROM progress WHERE key = ? AND expires_at > ?').pluck();
    this.setStmt = db.prepare(`
      INSERT INTO progress (key, value, expires_at) VALUES (?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`);
    this.deleteStmt = db.prepare('DELETE FROM progress WHERE key = ?');
    this.purgeStmt = db.prepare('DELETE FROM progress WHERE expires_at <= ?');
  }

  async get(key: string): Promise<unknown | undefined> {
    const text = this.getStmt.get(key, this.now()) as string | undefined;
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    // Through the write batch, so the row is committed (and durable) before the next part is sent.
    await this.writes.run(() => this.setStmt.run(key, JSON.stringify(value), this.now() + ttlMs));
  }

  async delete(key: string): Promise<void> {
    await this.writes.run(() => this.deleteStmt.run(key));
  }

  /** Drops expired entries; called with the store's other purges. */
  purge(): Promise<number> {
    return this.writes.run(() => this.purgeStmt.run(this.now()).changes);
  }
}
