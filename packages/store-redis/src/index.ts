// @hookwise/store-redis: the `redis` store plugin (default export) and the Redis store's building blocks.
//
// Every gateway loads this package (the store plugins are first-party), but ioredis and bullmq take about 180 ms
// and 27 MB to load. So the building blocks are getters that load their module on first use, and a gateway on
// another backend never loads them. TypeScript sees their types through the `declare` lines below.
import type * as StoreModule from './store';
import type * as ConnectionModule from './connection';
import type * as JobQueueModule from './job-queue';
import type * as DeliveryIdsModule from './delivery-ids';
import type * as RateLimiterModule from './rate-limiter';
import type * as AcceptorModule from './acceptor';
import type * as DeliveryLookupsModule from './delivery-lookups';

export { default, redisStore } from './plugin';
export type { RedisStore, RedisStoreOptions, RedisStoreConfig } from './store';
export type { RedisJobQueueOptions } from './job-queue';
export type { RedisAcceptOptions } from './acceptor';

export declare const createStore: typeof StoreModule.createStore;
export declare const openRedisStore: typeof StoreModule.openRedisStore;
export declare const DEFAULT_PREFIX: typeof StoreModule.DEFAULT_PREFIX;
export declare const connectRedis: typeof ConnectionModule.connectRedis;
export declare const redactRedisUrl: typeof ConnectionModule.redactRedisUrl;
export declare const RedisJobQueue: typeof JobQueueModule.RedisJobQueue;
export declare const RedisDeliveryIdCache: typeof DeliveryIdsModule.RedisDeliveryIdCache;
export declare const RedisRateLimiter: typeof RateLimiterModule.RedisRateLimiter;
export declare const RedisAcceptor: typeof AcceptorModule.RedisAcceptor;
export declare const DeliveryLookups: typeof DeliveryLookupsModule.DeliveryLookups;
// The classes' instance types, under the same names as their values.
export type RedisJobQueue = JobQueueModule.RedisJobQueue;
export type RedisDeliveryIdCache = DeliveryIdsModule.RedisDeliveryIdCache;
export type RedisRateLimiter = RateLimiterModule.RedisRateLimiter;
export type RedisAcceptor = AcceptorModule.RedisAcceptor;
export type DeliveryLookups = DeliveryLookupsModule.DeliveryLookups;

const lazy: Record<string, () => unknown> = {
  createStore: () => (require('./store') as typeof StoreModule).createStore,
  openRedisStore: () => (require('./store') as typeof StoreModule).openRedisStore,
  DEFAULT_PREFIX: () => (require('./store') as typeof StoreModule).DEFAULT_PREFIX,
  connectRedis: () => (require('./connection') as typeof ConnectionModule).connectRedis,
  redactRedisUrl: () => (require('./connection') as typeof ConnectionModule).redactRedisUrl,
  RedisJobQueue: () => (require('./job-queue') as typeof JobQueueModule).RedisJobQueue,
  RedisDeliveryIdCache: () => (require('./delivery-ids') as typeof DeliveryIdsModule).RedisDeliveryIdCache,
  RedisRateLimiter: () => (require('./rate-limiter') as typeof RateLimiterModule).RedisRateLimiter,
  RedisAcceptor: () => (require('./acceptor') as typeof AcceptorModule).RedisAcceptor,
  DeliveryLookups: () => (require('./delivery-lookups') as typeof DeliveryLookupsModule).DeliveryLookups,
};
for (const [name, load] of Object.entries(lazy)) Object.defineProperty(exports, name, { enumerable: true, get: load });
