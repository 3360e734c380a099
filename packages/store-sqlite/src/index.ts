// @hookwise/store-sqlite: the `sqlite` store plugin (default export) and the SQLite store's building blocks.
export { default, sqliteStore } from './plugin';
export { createStore, openSqliteStore, resolveStoreFile, DEFAULT_FILE, type SqliteStore, type SqliteStoreOptions, type SqliteStoreConfig } from './store';
export { SqliteJobQueue } from './job-queue';
export { SqliteDeliveryIdCache } from './delivery-ids';
export { SqliteRateLimiter } from './rate-limiter';
export { SqliteProgressKV } from './progress';
export { SqliteWindowCounters } from './counters';
export { WriteBatch } from './write-batch';
