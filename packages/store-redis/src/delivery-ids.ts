// Delivery ids in Redis (`SET NX PX`): a duplicate sent to two gateway instances runs once.
import { DELIVERY_ID_TTL_MS, type DeliveryIdCache } from '@hookwise/core';
import type { Redis } from 'ioredis';

export class RedisDeliveryIdCache implements DeliveryIdCache {
  constructor(private readonly client: Redis, private readonly prefix: string, private readonly ttlMs = DELIVERY_ID_TTL_MS) {}

  // Route names cannot contain ':', so route and id never run into each other.
  private key(route: string, deliveryId: string): string {
    return `${this.prefix}:delivery-id:${route}:${deliveryId}`;
  }

  async claim(route: string, deliveryId: string): Promise<boolean> {
    return (await this.client.set(this.key(route, deliveryId), '1', 'PX', this.ttlMs, 'NX')) === 'OK';
  }

  async release(route: string, deliveryId: string): Promise<void> {
    await this.client.del(this.key(route, deliveryId));
  }
}
