// Plugins' memos in Redis: one key per entry under the store's prefix, shared by every gateway on the Redis.
import type { MemoKV } from '@hookwise/core';
import type { Redis } from 'ioredis';

/**
 * One string key per entry (SET, with PX when it expires) rather than one hash: a hash field cannot expire on its
 * own before Redis 7.4, and an entry written without a TTL must outlive those written with one.
 */
export class RedisMemoKV implements MemoKV {
  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
  ) {}

  private key(key: string): string {
    return `${this.prefix}:memo:${key}`;
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.client.get(this.key(key))) ?? undefined;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    // A plain SET also drops an expiry the key had, so a memo rewritten without a TTL is kept.
    if (ttlMs === undefined) await this.client.set(this.key(key), value);
    else await this.client.set(this.key(key), value, 'PX', Math.max(1, Math.round(ttlMs)));
  }

  async delete(key: string): Promise<void> {
    await this.client.del(this.key(key));
  }
}
