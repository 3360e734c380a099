// Opens the SQLite file (WAL, full sync) and assembles the store the gateway uses by default.
import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { HookwiseError, errorMessage, type AcceptOutcome, type AcceptRequest, type Store, type StoreConfig } from '@hookwise/core';
import Database from 'better-sqlite3';
import type { Logger } from 'winston';
import { startCheckpointer, type Checkpointer } from './checkpointer';
import { SqliteDeliveryIdCache } from './delivery-ids';
import { InstanceHeartbeat } from './heartbeat';
import { SqliteJobQueue } from './job-queue';
import { SqliteRateLimiter } from './rate-limiter';
import { SCHEMA_VERSION, migrate } from './schema';
import { WriteBatch } from './write-batch';

/** The `store:` block for this backend. */
export interface SqliteStoreConfig extends StoreConfig {
  /** SQLite file, relative to the config dir (default hookwise.sqlite). */
  path?: string;
  synchronous?: 'normal' | 'full';
}

export const DEFAULT_FILE = 'hookwise.sqlite';

export interface SqliteStoreOptions {
  /** The database file; ':memory:' for a throwaway store. */
  file: string;
  logger?: Logger;
  now?: () => number;
  /** How often a leasing gateway records that it is alive (default 1 s). */
  heartbeatMs?: number;
  /** After this long without a heartbeat, a gateway's running jobs are taken over (default 5 s). */
  staleAfterMs?: number;
  /** Done jobs are deleted after this long (default 7 days); dead letters are kept. */
  doneRetentionMs?: number;
  /** How often expired ids and old jobs are purged (default 60 s). */
  purgeEveryMs?: number;
  /** 'normal' (default): durable across process crashes; 'full': also across power loss (an fsync per commit). */
  synchronous?: 'normal' | 'full';
  /**
   * Copy the write-ahead log into the file on a worker thread instead of the event loop (default true for a
   * file). Starts with the first `accept`, so CLI commands never start the thread.
   */
  backgroundCheckpoints?: boolean;
}

/** SQLite's own default: a commit that finds this many pages in the log checkpoints them. */
const AUTOCHECKPOINT_PAGES = 1000;
/** With the checkpoint thread running, the event loop checkpoints only if the log grows this large (32 MB). */
const FALLBACK_AUTOCHECKPOINT_PAGES = 8000;

export interface SqliteStore extends Store {
  readonly file: string;
  readonly jobs: SqliteJobQueue;
  readonly deliveryIds: SqliteDeliveryIdCache;
  /** Hit, claim, backpressure check and enqueue in one transaction. */
  accept(request: AcceptRequest): Promise<AcceptOutcome>;
  /** Deletes expired delivery ids, old done jobs and long-gone instances now. */
  purge(): Promise<void>;
  /** The connection's `synchronous` setting, as configured. */
  synchronousMode(): 'normal' | 'full';
}

/** The file the config points at: `store.path` relative to the config dir, default `<configDir>/hookwise.sqlite`. */
export function resolveStoreFile(config: Pick<SqliteStoreConfig, 'path'>, configDir: string): string {
  return path.resolve(configDir, config.path ?? DEFAULT_FILE);
}

function openDatabase(file: string, synchronous: 'normal' | 'full'): Database.Database {
  if (file !== ':memory:') {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // Payloads and answers may be confidential: create the file readable by its owner only.
    closeSync(openSync(file, 'a', 0o600));
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // In WAL mode NORMAL already keeps every commit across a crash or kill -9 of the process (the log is written
  // before the commit returns); FULL adds an fsync per commit so that it also survives a power loss. The fsync
  // runs on the event loop (better-sqlite3 is synchronous) and costs about 2 ms here, so it is opt-in.
  db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  // The CLI and other processes may hold the write lock briefly; wait for it rather than fail.
  db.pragma('busy_timeout = 5000');
  return db;
}

export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  const { file } = options;
  let db: Database.Database;
  try {
    db = openDatabase(file, options.synchronous ?? 'normal');
    migrate(db, file, SCHEMA_VERSION, (from, to) => {
      // A fresh file starts at 0; an existing one may take a while (versions 3 and 4 rebuild the jobs table once each).
      if (from > 0) options.logger?.info(`SQLite store: upgrading ${file} from schema ${from} to ${to}`);
    });
  } catch (err) {
    throw new HookwiseError('HW_E_STORE', `cannot open the SQLite store at ${file}: ${errorMessage(err)}; check that the directory is writable and the file is a Hookwise store, or set store.path`, { cause: err });
  }
  const now = options.now ?? Date.now;
  const writes = new WriteBatch(db);
  const heartbeat = new InstanceHeartbeat(db, writes, now, options.heartbeatMs ?? 1000, options.staleAfterMs ?? 5000);
  const deliveryIds = new SqliteDeliveryIdCache(db, writes, now);
  const jobs = new SqliteJobQueue(db, writes, heartbeat, { now, doneRetentionMs: options.doneRetentionMs ?? 7 * 24 * 60 * 60 * 1000 });
  const purge = async (): Promise<void> => {
    await Promise.all([deliveryIds.purge(), jobs.purgeDone(), heartbeat.purge()]);
  };
  const rateLimiter = new SqliteRateLimiter(db, writes, now);
  let checkpointer: Checkpointer | undefined;
  let closed = false;
  const startBackgroundCheckpoints = (): void => {
    const synchronous = options.synchronous ?? 'normal';
    checkpointer = startCheckpointer({
      file,
      synchronous,
      onError: (err) => {
        options.logger?.warn(`SQLite store: the checkpoint thread failed (${errorMessage(err)}); checkpointing on the main thread again`);
        if (!closed) db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
      },
    });
    db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  };
  const backgroundCheckpoints = file !== ':memory:' && options.backgroundCheckpoints !== false;
  // Hit, duplicate check, backpressure check and insert in one operation of one transaction: a crash never
  // leaves a claimed id without its job, and a burst of requests shares one commit.
  const accept = async (request: AcceptRequest): Promise<AcceptOutcome> => {
    if (backgroundCheckpoints && !checkpointer && !closed) startBackgroundCheckpoints();
    const { route, deliveryId, job } = request;
    const result = await writes.run((): AcceptOutcome => {
      const window = rateLimiter.hitNow(route, request.rateLimit);
      if (!window.allowed) return { outcome: 'rate_limited', retryAfterSeconds: window.retryAfterSeconds };
      if (deliveryIds.claimedNow(route, deliveryId)) return { outcome: 'duplicate' };
      if (!job) {
        deliveryIds.rememberNow(route, deliveryId);
        return { outcome: 'ignored' };
      }
      if (jobs.pendingNow() >= request.maxPending) return { outcome: 'backpressure' };
      // The job row claims the delivery id (SqliteDeliveryIdCache): nothing else to write.
      return { outcome: 'accepted', jobId: jobs.insertNow(job, request.hints ?? {}, now()) };
    });
    if (result.outcome === 'accepted') jobs.announce();
    return result;
  };
  const purger = setInterval(() => {
    purge().catch((err: unknown) => options.logger?.warn(`SQLite store: purging expired rows failed: ${errorMessage(err)}`));
  }, options.purgeEveryMs ?? 60_000);
  purger.unref();
  return {
    file,
    deliveryIds,
    rateLimiter,
    jobs,
    accept,
    purge,
    synchronousMode: () => (db.pragma('synchronous', { simple: true }) === 2 ? 'full' : 'normal'),
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(purger);
      heartbeat.stop();
      await jobs.close();
      writes.flush();
      await checkpointer?.stop();
      db.close();
    },
  };
}

/** The entry point the server calls for `store.backend: sqlite`. */
export async function createStore(options: { config: SqliteStoreConfig; configDir: string; logger: Logger }): Promise<Store> {
  const file = resolveStoreFile(options.config, options.configDir);
  const store = openSqliteStore({ file, logger: options.logger, synchronous: options.config.synchronous });
  options.logger.debug?.(`SQLite store at ${file}`);
  return store;
}
