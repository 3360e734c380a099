export { createStore, openSqliteStore, resolveStoreFile, DEFAULT_FILE, type SqliteStore, type SqliteStoreOptions } from './store';
export { SqliteJobQueue } from './job-queue';
export { SqliteDeliveryIdCache } from './delivery-ids';
export { SqliteRateLimiter } from './rate-limiter';
export { WriteBatch } from './write-batch';
