// Assembles the Redis store: several gateway instances on one Redis act as one.
import { HookwiseError, type Store, type StoreConfig } from '@hookwise/core';
import type { Logger } from 'winston';
import { RedisAcceptor, type RedisAcceptOptions } from './acceptor';
import { connectRedis, redactRedisUrl } from './connection';
import { RedisDeliveryIdCache } from './delivery-ids';
import { RedisJobQueue, type RedisJobQueueOptions } from './job-queue';
import { RedisProgressKV } from './progress';
import { RedisRateLimiter } from './rate-limiter';

/** The `store:` block for this backend. */
export interface RedisStoreConfig extends StoreConfig {
  /** e.g. redis://127.0.0.1:6379 */
  url?: string;
  /** Key prefix. */
  prefix?: string;
}

export const DEFAULT_PREFIX = 'hookwise';

export interface RedisStoreOptions extends RedisJobQueueOptions, RedisAcceptOptions {
  url: string;
  /** Key prefix, so that several Hookwise deployments can share one Redis (default `hookwise`). */
  prefix?: string;
}

export interface RedisStore extends Store {
  readonly jobs: RedisJobQueue;
  accept: NonNullable<Store['accept']>;
}

export async function openRedisStore(options: RedisStoreOptions): Promise<RedisStore> {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const client = await connectRedis(options.url);
  const jobs = new RedisJobQueue(client, prefix, options);
  const acceptor = new RedisAcceptor(client, prefix, jobs, options);
  let closed = false;
  return {
    deliveryIds: new RedisDeliveryIdCache(client, prefix),
    rateLimiter: new RedisRateLimiter(client, prefix),
    jobs,
    progress: new RedisProgressKV(client, prefix),
    accept: (request) => acceptor.accept(request),
    async close() {
      if (closed) return;
      closed = true;
      await jobs.close();
      await client.quit().catch(() => client.disconnect());
    },
  };
}

/** The entry point the server calls for `store.backend: redis`. */
export async function createStore(options: { config: RedisStoreConfig; configDir: string; logger: Logger }): Promise<Store> {
  const { url, prefix } = options.config;
  if (!url) throw new HookwiseError('HW_E_STORE', 'store.backend is redis but store.url is not set: set it to e.g. redis://127.0.0.1:6379 (a password goes in the URL or ${REDIS_URL})');
  const store = await openRedisStore({ url, prefix });
  options.logger.info(`Redis store at ${redactRedisUrl(url)} (prefix ${prefix ?? DEFAULT_PREFIX})`);
  return store;
}
