// Delivery ids in SQLite: remembered per route for an hour, so duplicates are caught across restarts.
import { DELIVERY_ID_TTL_MS, type DeliveryIdCache } from '@hookwise/core';
import type { Database, Statement } from 'better-sqlite3';
import type { WriteBatch } from './write-batch';

export class SqliteDeliveryIdCache implements DeliveryIdCache {
  private readonly claimStmt: Statement;
  private readonly releaseStmt: Statement;
  private readonly purgeStmt: Statement;

  constructor(db: Database, private readonly writes: WriteBatch, private readonly now: () => number, private readonly ttlMs = DELIVERY_ID_TTL_MS) {
    // An expired row counts as absent: the upsert only overwrites it when it has expired.
    this.claimStmt = db.prepare(`
      INSERT INTO delivery_ids (route, delivery_id, expires_at) VALUES (?, ?, ?)
      ON CONFLICT (route, delivery_id) DO UPDATE SET expires_at = excluded.expires_at WHERE delivery_ids.expires_at <= ?`);
    this.releaseStmt = db.prepare('DELETE FROM delivery_ids WHERE route = ? AND delivery_id = ?');
    this.purgeStmt = db.prepare('DELETE FROM delivery_ids WHERE expires_at <= ?');
  }

  claim(route: string, deliveryId: string): Promise<boolean> {
    return this.writes.run(() => this.claimNow(route, deliveryId));
  }

  async release(route: string, deliveryId: string): Promise<void> {
    await this.writes.run(() => this.releaseNow(route, deliveryId));
  }

  /** `claim` inside the current WriteBatch operation. */
  claimNow(route: string, deliveryId: string): boolean {
    const now = this.now();
    return this.claimStmt.run(route, deliveryId, now + this.ttlMs, now).changes === 1;
  }

  /** `release` inside the current WriteBatch operation. */
  releaseNow(route: string, deliveryId: string): void {
    this.releaseStmt.run(route, deliveryId);
  }

  /** Drops expired ids; called periodically so the table stays as small as one hour of traffic. */
  purge(): Promise<number> {
    return this.writes.run(() => this.purgeStmt.run(this.now()).changes);
  }
}
