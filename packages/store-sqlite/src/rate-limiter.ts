// Fixed 60 s rate windows in SQLite, one row per route; shared by every process using the file.
import { RATE_WINDOW_MS } from '@hookwise/core';
import { type RateLimiter, type RateWindow } from '@hookwise/core';
import type { Database, Statement } from 'better-sqlite3';
import type { WriteBatch } from './write-batch';

/** How long `check` may reuse a window it knows instead of reading it again. */
const PEEK_REUSE_MS = 100;

interface Window {
  start: number;
  count: number;
  /** Counted in the current transaction: only such windows are written at its commit. */
  changed?: boolean;
}

export class SqliteRateLimiter implements RateLimiter {
  private readonly readStmt: Statement<[string], { window_start: number; count: number }>;
  private readonly writeStmt: Statement;
  /**
   * The windows counted in the current transaction: read once, written once when it commits. A batch of a
   * thousand requests to one route costs one read and one write, not a thousand of each; the write lock held
   * for the transaction keeps other processes out in between.
   */
  private inTransaction?: Map<string, Window>;
  /** What this process last read or committed per route, and when: the peek in `check` reuses it briefly. */
  private readonly known = new Map<string, Window & { at: number }>();

  constructor(
    db: Database,
    private readonly writes: WriteBatch,
    private readonly now: () => number,
    private readonly windowMs = RATE_WINDOW_MS,
  ) {
    this.readStmt = db.prepare('SELECT window_start, count FROM rate_windows WHERE route = ?');
    this.writeStmt = db.prepare(`
      INSERT INTO rate_windows (route, window_start, count) VALUES (?, ?, ?)
      ON CONFLICT (route) DO UPDATE SET window_start = excluded.window_start, count = excluded.count`);
  }

  private stored(route: string): Window {
    const row = this.readStmt.get(route);
    return row ? { start: row.window_start, count: row.count } : { start: 0, count: 0 };
  }

  private answer(count: number, start: number, limit: number, now: number): RateWindow {
    return { allowed: count < limit, retryAfterSeconds: Math.max(1, Math.ceil((start + this.windowMs - now) / 1000)) };
  }

  /**
   * The peek before the body is read. It may use what this process committed or read within the last
   * PEEK_REUSE_MS instead of reading the row: it only decides whether to answer 429 early, and the counted
   * hit (inside the accept transaction) is always exact, also with other processes on the same file.
   */
  async check(route: string, limit: number): Promise<RateWindow> {
    const now = this.now();
    const start = now - (now % this.windowMs);
    let window = this.known.get(route);
    if (!window || now - window.at >= PEEK_REUSE_MS) {
      window = { ...this.stored(route), at: now };
      this.known.set(route, window);
    }
    return this.answer(window.start === start ? window.count : 0, start, limit, now);
  }

  hit(route: string, limit: number): Promise<RateWindow> {
    return this.writes.run(() => this.hitNow(route, limit));
  }

  /** The window inside the current WriteBatch operation, without counting (exact: it reads what the transaction sees). */
  peekNow(route: string, limit: number): RateWindow {
    return this.countNow(route, limit, false);
  }

  /** `hit` inside the current WriteBatch operation: counted in the transaction's window, written at its commit. */
  hitNow(route: string, limit: number): RateWindow {
    return this.countNow(route, limit, true);
  }

  private countNow(route: string, limit: number, count: boolean): RateWindow {
    const windows = this.windowsOfTransaction();
    const now = this.now();
    const start = now - (now % this.windowMs);
    let window = windows.get(route);
    if (!window) {
      window = this.stored(route);
      windows.set(route, window);
    }
    if (window.start !== start) {
      window.start = start;
      window.count = 0;
    }
    const result = this.answer(window.count, start, limit, now);
    if (result.allowed && count) {
      window.count += 1;
      window.changed = true;
    }
    return result;
  }

  private windowsOfTransaction(): Map<string, Window> {
    if (this.inTransaction) return this.inTransaction;
    const windows = new Map<string, Window>();
    this.inTransaction = windows;
    this.writes.hook({
      finish: () => {
        const at = this.now();
        for (const [route, w] of windows) {
          // A window only peeked at (duplicates, ignored events) is not written: nothing in it changed.
          if (w.changed) this.writeStmt.run(route, w.start, w.count);
          this.known.set(route, { start: w.start, count: w.count, at });
        }
        this.inTransaction = undefined;
      },
      discard: () => {
        // A failed commit may come after finish: what it cached was never stored.
        for (const route of windows.keys()) this.known.delete(route);
        this.inTransaction = undefined;
      },
    });
    return windows;
  }
}
