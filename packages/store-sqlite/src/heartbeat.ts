// Liveness of the gateways sharing a file: a killed gateway stops beating and its running jobs are taken over.
import { randomUUID } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import type { WriteBatch } from './write-batch';

/**
 * A lease alone would make a restarted gateway wait out the dead one's lease (30 s by default) before its
 * interrupted jobs run again. The heartbeat shortens that to `staleAfterMs`: once a store instance has not
 * beaten for that long, its running jobs count as orphaned. It starts with the first lease, so CLI commands
 * that only read or enqueue never register.
 */
export class InstanceHeartbeat {
  readonly id = randomUUID();
  private timer?: NodeJS.Timeout;
  private readonly beatStmt: Statement;
  private readonly removeStmt: Statement;
  private readonly purgeStmt: Statement;

  constructor(
    db: Database,
    private readonly writes: WriteBatch,
    private readonly now: () => number,
    readonly intervalMs: number,
    readonly staleAfterMs: number,
  ) {
    this.beatStmt = db.prepare('INSERT INTO instances (id, seen_at) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at');
    this.removeStmt = db.prepare('DELETE FROM instances WHERE id = ?');
    this.purgeStmt = db.prepare('DELETE FROM instances WHERE seen_at <= ?');
  }

  /** Registers this instance (once) and returns its id. */
  start(): string {
    if (this.timer) return this.id;
    this.beatNow();
    this.timer = setInterval(() => void this.writes.run(() => this.beatNow()).catch(() => undefined), this.intervalMs);
    this.timer.unref();
    return this.id;
  }

  private beatNow(): void {
    this.beatStmt.run(this.id, this.now());
  }

  /** Forgets instances gone for an hour; their rows only matter for the few seconds after they die. */
  purge(): Promise<number> {
    return this.writes.run(() => this.purgeStmt.run(this.now() - 60 * 60 * 1000).changes);
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    // Still queued behind the final flush; the owner's released jobs are pending by then.
    void this.writes.run(() => this.removeStmt.run(this.id)).catch(() => undefined);
  }
}
