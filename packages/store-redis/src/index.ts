export { createStore, openRedisStore, DEFAULT_PREFIX, type RedisStore, type RedisStoreOptions } from './store';
export { connectRedis, redactRedisUrl } from './connection';
export { RedisJobQueue, type RedisJobQueueOptions } from './job-queue';
export { RedisDeliveryIdCache } from './delivery-ids';
export { RedisRateLimiter } from './rate-limiter';
export { RedisAcceptor, type RedisAcceptOptions } from './acceptor';
export { DeliveryLookups } from './delivery-lookups';
