// Fixed 60 s rate windows in SQLite, one row per route; shared by every process using the file.
import { RATE_WINDOW_MS, type RateLimiter, type RateWindow } from '@hookwise/core';
import type { Database, Statement } from 'better-sqlite3';
import type { WriteBatch } from './write-batch';

export class SqliteRateLimiter implements RateLimiter {
  private readonly readStmt: Statement<[string], { window_start: number; count: number }>;
  private readonly writeStmt: Statement;

  constructor(db: Database, private readonly writes: WriteBatch, private readonly now: () => number, private readonly windowMs = RATE_WINDOW_MS) {
    this.readStmt = db.prepare('SELECT window_start, count FROM rate_windows WHERE route = ?');
    this.writeStmt = db.prepare(`
      INSERT INTO rate_windows (route, window_start, count) VALUES (@route, @start, @count)
      ON CONFLICT (route) DO UPDATE SET window_start = excluded.window_start, count = excluded.count`);
  }

  private countIn(route: string, start: number): number {
    const row = this.readStmt.get(route);
    return row && row.window_start === start ? row.count : 0;
  }

  private answer(count: number, start: number, limit: number, now: number): RateWindow {
    return { allowed: count < limit, retryAfterSeconds: Math.max(1, Math.ceil((start + this.windowMs - now) / 1000)) };
  }

  async check(route: string, limit: number): Promise<RateWindow> {
    const now = this.now();
    const start = now - (now % this.windowMs);
    return this.answer(this.countIn(route, start), start, limit, now);
  }

  hit(route: string, limit: number): Promise<RateWindow> {
    // Read and write in one write transaction, so two processes never count the same slot twice.
    return this.writes.run(() => {
      const now = this.now();
      const start = now - (now % this.windowMs);
      const count = this.countIn(route, start);
      const result = this.answer(count, start, limit, now);
      if (result.allowed) this.writeStmt.run({ route, start, count: count + 1 });
      return result;
    });
  }
}
