// Plugins' memos in SQLite (the memos table, schema 9): e.g. a sticky comment's id, found again after a restart.
import type { MemoKV } from '@hookwise/core';
import type { Database, Statement } from 'better-sqlite3';
import type { WriteBatch } from './write-batch';

export class SqliteMemoKV implements MemoKV {
  private readonly getStmt: Statement;
  private readonly setStmt: Statement;
  private readonly deleteStmt: Statement;
  private readonly purgeStmt: Statement;

  constructor(
    db: Database,
    private readonly writes: WriteBatch,
    private readonly now: () => number,
  ) {
    // expires_at NULL: kept until it is overwritten or deleted.
    this.getStmt = db.prepare('SELECT value FROM memos WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)').pluck();
    this.setStmt = db.prepare(`
      INSERT INTO memos (key, value, expires_at) VALUES (?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`);
    this.deleteStmt = db.prepare('DELETE FROM memos WHERE key = ?');
    this.purgeStmt = db.prepare('DELETE FROM memos WHERE expires_at <= ?');
  }

  async get(key: string): Promise<string | undefined> {
    return this.getStmt.get(key, this.now()) as string | undefined;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    // Through the write batch, so the row is committed before the caller goes on (e.g. before the next answer).
    await this.writes.run(() => this.setStmt.run(key, value, ttlMs === undefined ? null : this.now() + ttlMs));
  }

  async delete(key: string): Promise<void> {
    await this.writes.run(() => this.deleteStmt.run(key));
  }

  /** Drops expired entries; called with the store's other purges. */
  purge(): Promise<number> {
    return this.writes.run(() => this.purgeStmt.run(this.now()).changes);
  }
}
