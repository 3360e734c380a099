// The outbox in SQLite (the outbox table, schema 10): messages to other systems (notify: lifecycle webhooks) kept
// until sent, so a stop or crash loses none; gateways sharing the file claim each message once.
import type { Outbox, OutboxMessage } from '@hookwise/core';
import type { Database, Statement } from 'better-sqlite3';
import type { WriteBatch } from './write-batch';

export class SqliteOutbox implements Outbox {
  private readonly insertStmt: Statement;
  private readonly countStmt: Statement;
  private readonly trimStmt: Statement;
  private readonly dueStmt: Statement;
  private readonly claimStmt: Statement;
  private readonly doneStmt: Statement;
  private readonly retryStmt: Statement;

  constructor(
    db: Database,
    private readonly writes: WriteBatch,
    private readonly now: () => number,
  ) {
    // OR REPLACE: the same id added again (a caller's retry) is one message, not two.
    this.insertStmt = db.prepare('INSERT OR REPLACE INTO outbox (target, id, body, attempts, due_at) VALUES (?, ?, ?, 0, ?)');
    this.countStmt = db.prepare('SELECT count(*) FROM outbox WHERE target = ?').pluck();
    this.trimStmt = db.prepare('DELETE FROM outbox WHERE seq IN (SELECT seq FROM outbox WHERE target = ? ORDER BY seq LIMIT ?)');
    this.dueStmt = db.prepare('SELECT seq, id, body, attempts FROM outbox WHERE target = ? AND due_at <= ? ORDER BY seq LIMIT ?');
    this.claimStmt = db.prepare('UPDATE outbox SET due_at = ? WHERE seq = ?');
    this.doneStmt = db.prepare('DELETE FROM outbox WHERE target = ? AND id = ?');
    this.retryStmt = db.prepare('UPDATE outbox SET due_at = ?, attempts = ? WHERE target = ? AND id = ?');
  }

  add(target: string, message: { id: string; body: string }, max: number): Promise<{ dropped: number }> {
    return this.writes.run(() => {
      this.insertStmt.run(target, message.id, message.body, this.now());
      const excess = (this.countStmt.get(target) as number) - Math.max(0, max);
      return { dropped: excess > 0 ? this.trimStmt.run(target, excess).changes : 0 };
    });
  }

  due(target: string, limit: number, leaseMs: number): Promise<OutboxMessage[]> {
    // Read and claim in one write transaction: another gateway on the file claims after it, and finds them leased.
    return this.writes.run(() => {
      const now = this.now();
      const rows = this.dueStmt.all(target, now, Math.max(0, limit)) as Array<OutboxMessage & { seq: number }>;
      for (const row of rows) this.claimStmt.run(now + leaseMs, row.seq);
      return rows.map(({ id, body, attempts }) => ({ id, body, attempts }));
    });
  }

  async done(target: string, id: string): Promise<void> {
    await this.writes.run(() => this.doneStmt.run(target, id));
  }

  async retryLater(target: string, id: string, at: number, attempts: number): Promise<void> {
    await this.writes.run(() => this.retryStmt.run(Math.round(at), attempts, target, id));
  }
}
