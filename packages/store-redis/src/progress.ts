// Delivery progress in Redis: one key per entry with its own expiry, shared by every gateway on the Redis.
import type { ProgressKV } from '@hookwise/core';
import type { Redis } from 'ioredis';

/**
 * One string key per entry (SET PX) rather than one hash: a hash field cannot expire on its own before Redis
 * 7.4, and every entry (one delivery to one destination) must be forgotten on its own schedule.
 */
export class RedisProgressKV implements ProgressKV {
  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
  ) {}

  private key(key: string): string {
    return `${this.prefix}:progress:${key}`;
  }

  async get(key: string): Promise<unknown | undefined> {
    const text = await this.client.get(this.key(key));
    return text === null ? undefined : (JSON.parse(text) as unknown);
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    await this.client.set(this.key(key), JSON.stringify(value), 'PX', Math.max(1, Math.round(ttlMs)));
  }

  async delete(key: string): Promise<void> {
    await this.client.del(this.key(key));
  }
}
