// The memory store's delivery-id cache: ids claimed per route for the TTL, keyed by a hash of (route, id).
import { createHash, hash } from 'node:crypto';
import { DELIVERY_ID_TTL_MS, type DeliveryIdCache } from '@hookwise/core';

/** SHA-256 of a string as a 32-character latin1 ("binary") string; `crypto.hash` (Node 20.12+) is one call instead of a Hash object. */
const sha256Latin1: (text: string) => string =
  typeof hash === 'function' ? (text) => hash('sha256', text, 'binary') : (text) => createHash('sha256').update(text).digest('binary');

/**
 * The cache key of (route, id): the SHA-256 of `route\0id` as a latin1 string. Senders choose ids of any length,
 * and a million plain `route\0id` keys took about 3× the memory (docs/performance.md); a digest keeps memory per
 * remembered id flat, with collisions out of reach.
 */
function idKey(route: string, deliveryId: string): string {
  return sha256Latin1(`${route}\u0000${deliveryId}`);
}

/**
 * Remembers ids in a Map in the order they were claimed, each with its expiry time. Every id lives equally long,
 * so the oldest entry is always the first to expire and the first to go when the size bound is reached: expired
 * ids are dropped from the front as new ones come in, and memory stays bounded by `max` under floods of unique ids.
 */
export class MemoryDeliveryIdCache implements DeliveryIdCache {
  private readonly expiries = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(options: { ttlMs?: number; max?: number; now?: () => number } = {}) {
    this.ttlMs = options.ttlMs ?? DELIVERY_ID_TTL_MS;
    this.max = options.max ?? 1_000_000;
    this.now = options.now ?? Date.now;
  }

  async claim(route: string, deliveryId: string): Promise<boolean> {
    return this.claimNow(route, deliveryId);
  }

  async release(route: string, deliveryId: string): Promise<void> {
    this.releaseNow(route, deliveryId);
  }

  /** `claim` without a promise, for the memory store's own accept. */
  claimNow(route: string, deliveryId: string): boolean {
    const key = idKey(route, deliveryId);
    const now = this.now();
    const expiry = this.expiries.get(key);
    if (expiry !== undefined && expiry > now) return false;
    // An expired id is claimed afresh: deleted first so that it moves to the end of the claim order.
    if (expiry !== undefined) this.expiries.delete(key);
    this.expiries.set(key, now + this.ttlMs);
    this.forgetExpiredAndOldest(now);
    return true;
  }

  /** `release` without a promise. */
  releaseNow(route: string, deliveryId: string): void {
    this.expiries.delete(idKey(route, deliveryId));
  }

  /** Drops ids from the front (oldest first) while they have expired or there are more than `max`. */
  private forgetExpiredAndOldest(now: number): void {
    for (const [key, expiry] of this.expiries) {
      if (expiry > now && this.expiries.size <= this.max) return;
      this.expiries.delete(key);
    }
  }

  get size(): number {
    return this.expiries.size;
  }
}
