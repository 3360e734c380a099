// Delivery progress in SQLite (the progress table, schema 7): a half-sent answer resumes after a restart.
import type { ProgressKV } from '@hookwise/core';
import type { Database } from 'better-sqlite3';
import { SqliteKvTable } from './kv-table';
import type { WriteBatch } from './write-batch';

export class SqliteProgressKV implements ProgressKV {
  private readonly table: SqliteKvTable;

  constructor(db: Database, writes: WriteBatch, now: () => number) {
    this.table = new SqliteKvTable(db, 'progress', writes, now);
  }

  async get(key: string): Promise<unknown | undefined> {
    const text = this.table.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  }

  /** Stored as JSON, committed before the next part is sent. */
  set(key: string, value: unknown, ttlMs: number): Promise<void> {
    return this.table.set(key, JSON.stringify(value), ttlMs);
  }

  delete(key: string): Promise<void> {
    return this.table.delete(key);
  }

  purge(): Promise<number> {
    return this.table.purge();
  }
}
