// Plugins' memos in Redis: one key per entry under the store's prefix, shared by every gateway on the Redis.
import type { MemoKV } from '@hookwise/core';
import type { Redis } from 'ioredis';

/**
 * KEYS[1] the memo's key; ARGV: whether a value is expected ('1', else the key must be absent), the expected value,
 * the new value, its TTL in ms ('' for none). An expired key reads as absent (Redis drops it on access). One
 * script, so no other client writes between the comparison and the SET. Returns 1 when it wrote, else 0.
 */
const COMPARE_AND_SET_LUA = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end
if ARGV[4] == '' then redis.call('SET', KEYS[1], ARGV[3]) else redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4]) end
return 1
`;

type CompareAndSetCommand = (key: string, hasExpected: string, expected: string, value: string, ttlMs: string) => Promise<number>;

/**
 * One string key per entry (SET, with PX when it expires) rather than one hash: a hash field cannot expire on its
 * own before Redis 7.4, and an entry written without a TTL must outlive those written with one.
 */
export class RedisMemoKV implements MemoKV {
  private readonly compareAndSetCommand: CompareAndSetCommand;

  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
  ) {
    client.defineCommand('hookwiseMemoCompareAndSet', { numberOfKeys: 1, lua: COMPARE_AND_SET_LUA });
    this.compareAndSetCommand = (client as unknown as { hookwiseMemoCompareAndSet: CompareAndSetCommand }).hookwiseMemoCompareAndSet.bind(client);
  }

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

  /** Like `set` (a write without `ttlMs` drops the key's expiry), if the key holds `expected`: one Lua script. */
  async compareAndSet(key: string, expected: string | undefined, value: string, ttlMs?: number): Promise<boolean> {
    const ttl = ttlMs === undefined ? '' : String(Math.max(1, Math.round(ttlMs)));
    return Number(await this.compareAndSetCommand(this.key(key), expected === undefined ? '0' : '1', expected ?? '', value, ttl)) === 1;
  }

  async delete(key: string): Promise<void> {
    await this.client.del(this.key(key));
  }
}
