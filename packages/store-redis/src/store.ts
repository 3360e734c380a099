// Assembles the Redis store: several gateway instances on one Redis act as one.
import { DEFAULT_JOBS_RETENTION_DAYS, HookwiseError, type Store, type StoreConfig } from '@hookwise/core';
import type { Logger } from 'winston';
import { RedisAcceptor, type RedisAcceptOptions } from './acceptor';
import { connectRedis, redactRedisUrl } from './connection';
import { RedisWindowCounters } from './counters';
import { RedisDeliveryIdCache } from './delivery-ids';
import { RedisJobQueue, type RedisJobQueueOptions } from './job-queue';
import { RedisMemoKV } from './memos';
import { RedisOutbox } from './outbox';
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
/** How long closing waits for Redis before it drops the connection (Redis may be the reason for the shutdown). */
const CLOSE_TIMEOUT_MS = 3000;

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
  const rateLimiter = new RedisRateLimiter(client, prefix);
  const acceptor = new RedisAcceptor(prefix, jobs, rateLimiter, options);
  let closed = false;
  return {
    deliveryIds: new RedisDeliveryIdCache(client, prefix),
    rateLimiter,
    jobs,
    progress: new RedisProgressKV(client, prefix),
    memos: new RedisMemoKV(client, prefix),
    outbox: new RedisOutbox(client, prefix),
    counters: new RedisWindowCounters(client, prefix),
    accept: (request) => acceptor.accept(request),
    // From ioredis's own state, no round trip: /health says 'degraded' while the connection is down (commands
    // wait for it meanwhile, so the pipeline's 503 comes only from calls that fail).
    health: () =>
      closed || client.status === 'ready'
        ? { ok: true }
        : { ok: false, reason: `the Redis connection is ${client.status} (reconnecting); events cannot be stored until it is back` },
    async close() {
      if (closed) return;
      closed = true;
      // bullmq's close waits for Redis; with Redis gone it would wait forever and the gateway would never exit.
      let timer: NodeJS.Timeout | undefined;
      const gone = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), CLOSE_TIMEOUT_MS);
      });
      const outcome = await Promise.race([jobs.close().then(() => 'closed' as const), gone]).finally(() => clearTimeout(timer));
      if (outcome === 'timeout' || client.status !== 'ready') {
        client.disconnect();
        return;
      }
      await client.quit().catch(() => client.disconnect());
    },
  };
}

/** The entry point the server calls for `store.backend: redis`. */
export async function createStore(options: { config: RedisStoreConfig; configDir: string; logger: Logger }): Promise<Store> {
  const { url, prefix } = options.config;
  if (!url)
    throw new HookwiseError(
      'HW_E_STORE',
      'store.backend is redis but store.url is not set: set it to e.g. redis://127.0.0.1:6379 (a password goes in the URL or ${REDIS_URL})',
    );
  const days = options.config.retention?.jobs_days ?? DEFAULT_JOBS_RETENTION_DAYS;
  const store = await openRedisStore({ url, prefix, doneRetentionMs: days * 24 * 3600 * 1000 });
  options.logger.info(`Redis store at ${redactRedisUrl(url)} (prefix ${prefix ?? DEFAULT_PREFIX})`);
  return store;
}
