// A real redis-server for one test file, and Redis stores ("gateways") on fresh prefixes, closed after each test.
import { startRedisServer, type RunningRedis } from '@hookwise/testing';
import type { Redis } from 'ioredis';
import { openRedisStore, type RedisStore, type RedisStoreOptions } from '../src';

/** The ioredis connection a store shares with bullmq (bullmq's `queue.client` is a proxy jest cannot spy on). */
export const connectionOf = (store: RedisStore): Redis => (store.jobs as unknown as { client: Redis }).client;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Asks `probe` every 25 ms until it answers something other than undefined; fails after `withinMs`. */
export async function eventually<T>(what: string, withinMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const giveUpAt = Date.now() + withinMs;
  let answer = await probe();
  while (answer === undefined) {
    if (Date.now() > giveUpAt) throw new Error(`${what}: not within ${withinMs} ms`);
    await sleep(25);
    answer = await probe();
  }
  return answer;
}

export interface RedisFixture {
  /** `count` stores on one fresh prefix: gateways sharing one Redis. */
  gateways(name: string, count: number, options?: Partial<RedisStoreOptions>): Promise<RedisStore[]>;
  /** The key prefix of the last `gateways` call. */
  prefix(): string;
}

/** Registers the jest hooks; call it at the top of a describe block. */
export function useRedisFixture(): RedisFixture {
  let redis: RunningRedis | undefined;
  let n = 0;
  let last = '';
  const opened: RedisStore[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close().catch(() => undefined);
  });
  afterAll(async () => {
    await redis?.stop();
  });
  return {
    async gateways(name, count, options = { stalledIntervalMs: 200 }) {
      last = `${name}-${(n += 1)}`;
      const stores: RedisStore[] = [];
      for (let i = 0; i < count; i += 1) stores.push(await openRedisStore({ url: redis!.url, prefix: last, ...options }));
      opened.push(...stores);
      return stores;
    },
    prefix: () => last,
  };
}
