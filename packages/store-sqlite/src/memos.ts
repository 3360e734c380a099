// Plugins' memos in SQLite (the memos table, schema 9): e.g. a sticky comment's id, found again after a restart.
import type { MemoKV } from '@hookwise/core';
import type { Database } from 'better-sqlite3';
import { SqliteKvTable } from './kv-table';
import type { WriteBatch } from './write-batch';

export class SqliteMemoKV implements MemoKV {
  private readonly table: SqliteKvTable;

  constructor(db: Database, writes: WriteBatch, now: () => number) {
    this.table = new SqliteKvTable(db, 'memos', writes, now);
  }

  async get(key: string): Promise<string | undefined> {
    return this.table.get(key);
  }

  /** Without `ttlMs` the memo is kept until it is overwritten or deleted. */
  set(key: string, value: string, ttlMs?: number): Promise<void> {
    return this.table.set(key, value, ttlMs);
  }

  /** Atomic across every store on the file: see SqliteKvTable.compareAndSet. */
  compareAndSet(key: string, expected: string | undefined, value: string, ttlMs?: number): Promise<boolean> {
    return this.table.compareAndSet(key, expected, value, ttlMs);
  }

  delete(key: string): Promise<void> {
    return this.table.delete(key);
  }

  purge(): Promise<number> {
    return this.table.purge();
  }
}
