// Delivery ids in Redis (`SET NX PX`): a duplicate sent to two gateway instances runs once.
import { DELIVERY_ID_TTL_MS } from '@hookwise/core';
import { type DeliveryIdCache } from '@hookwise/core';
import type { Redis } from 'ioredis';

/** The key that remembers one delivery id on one route. Route names cannot contain ':', so route and id never run into each other. */
export function deliveryIdKey(prefix: string, route: string, deliveryId: string): string {
  return `${prefix}:delivery-id:${route}:${deliveryId}`;
}

/**
 * The plain claim the `DeliveryIdCache` interface asks for. The gateway itself claims through the store's
 * `accept` (see accept-scripts.ts), whose claims stay pending until the job is stored; both kinds share the key,
 * and this one treats any value, pending or not, as taken.
 */
export class RedisDeliveryIdCache implements DeliveryIdCache {
  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
    private readonly ttlMs = DELIVERY_ID_TTL_MS,
  ) {}

  private key(route: string, deliveryId: string): string {
    return deliveryIdKey(this.prefix, route, deliveryId);
  }

  async claim(route: string, deliveryId: string): Promise<boolean> {
    return (await this.client.set(this.key(route, deliveryId), '1', 'PX', this.ttlMs, 'NX')) === 'OK';
  }

  async release(route: string, deliveryId: string): Promise<void> {
    await this.client.del(this.key(route, deliveryId));
  }
}
