// Opens the SQLite file (WAL, full sync) and assembles the store the gateway uses by default.
import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import {
  DEFAULT_JOBS_RETENTION_DAYS,
  HookwiseError,
  errorMessage,
  type AcceptOutcome,
  type AcceptRequest,
  type JobInput,
  type Store,
  type StoreConfig,
  type StoreHealth,
} from '@hookwise/core';
import Database from 'better-sqlite3';
import type { Logger } from 'winston';
import { startCheckpointer, type Checkpointer } from './checkpointer';
import { SqliteWindowCounters } from './counters';
import { SqliteDeliveryIdCache } from './delivery-ids';
import { InstanceHeartbeat } from './heartbeat';
import { SqliteJobQueue } from './job-queue';
import { SqliteMemoKV } from './memos';
import { SqliteOutbox } from './outbox';
import { SqliteProgressKV } from './progress';
import { SqliteRateLimiter } from './rate-limiter';
import { SCHEMA_VERSION, migrate } from './schema';
import { BUSY_TIMEOUT_MS, WriteBatch, describeSqliteError } from './write-batch';

/** The `store:` block for this backend. */
export interface SqliteStoreConfig extends StoreConfig {
  /** SQLite file, relative to the config dir (default hookwise.sqlite). */
  path?: string;
  synchronous?: 'normal' | 'full';
}

export const DEFAULT_FILE = 'hookwise.sqlite';
const DAY_MS = 24 * 60 * 60 * 1000;

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

/**
 * How long a request's accept may wait (between attempts, off the event loop) for a write lock another process
 * holds, before it is answered 503 with Retry-After: long enough for a CLI command's short write.
 */
export const ACCEPT_LOCK_WAIT_MS = 50;
/** How long opening the file (migrations, the integrity check) waits for a lock: nothing is served yet. */
const OPEN_BUSY_TIMEOUT_MS = 5000;

/** SQLite's own default: a commit that finds this many pages in the log checkpoints them. */
const AUTOCHECKPOINT_PAGES = 1000;
/** With the checkpoint thread running, the event loop checkpoints only if the log grows this large (32 MB). */
const FALLBACK_AUTOCHECKPOINT_PAGES = 8000;

export interface SqliteStore extends Store {
  readonly file: string;
  readonly jobs: SqliteJobQueue;
  readonly deliveryIds: SqliteDeliveryIdCache;
  readonly progress: SqliteProgressKV;
  readonly memos: SqliteMemoKV;
  readonly outbox: SqliteOutbox;
  readonly counters: SqliteWindowCounters;
  /** Hit, claim, backpressure check and enqueue in one transaction. */
  accept(request: AcceptRequest): Promise<AcceptOutcome>;
  /** Deletes expired delivery ids, old done jobs and long-gone instances now. */
  purge(): Promise<void>;
  /** The connection's `synchronous` setting, as configured. */
  synchronousMode(): 'normal' | 'full';
  /** From memory: failing while the last commit failed (the file locked by another process, or broken). */
  health(): StoreHealth;
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
  // Opening may wait for another process's lock; once serving, waits happen between attempts (WriteBatch).
  db.pragma(`busy_timeout = ${OPEN_BUSY_TIMEOUT_MS}`);
  return db;
}

/**
 * PRAGMA quick_check: a file with damaged pages would otherwise start, report healthy and answer every webhook
 * with an error. It reads every page once (seconds for a file of gigabytes), only when the store opens.
 */
function checkIntegrity(db: Database.Database, file: string): void {
  if (file === ':memory:') return;
  let problems: string[];
  try {
    problems = (db.pragma('quick_check(5)') as Array<{ quick_check: string }>).map((row) => row.quick_check);
  } catch (err) {
    problems = [describeSqliteError(err)];
  }
  if (problems.length === 1 && problems[0] === 'ok') return;
  // SQLite writes several findings per row, one per line: one line for the message, the first few findings.
  let found = problems
    .join('\n')
    .split(/\s*\n\s*/)
    .filter((line) => line && !line.startsWith('***'))
    .join('; ');
  if (found.length > 400) found = `${found.slice(0, 400)}...`;
  throw damaged(file, `PRAGMA quick_check: ${found}`);
}

/** The answer to a store file SQLite finds damaged, wherever it finds it (opening, the check, a migration). */
function damaged(file: string, found: string, cause?: unknown): HookwiseError {
  return new HookwiseError(
    'HW_E_STORE',
    `the SQLite store ${file} is damaged (${found}): stop every gateway using it, move the file away (with its -wal and -shm files; \`sqlite3 <file> .recover\` may save its jobs) and start again with a fresh file, or restore a backup`,
    cause === undefined ? undefined : { cause },
  );
}

/** SQLite's codes for a file whose pages or header are not what they must be. */
function isCorruption(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT_'));
}

export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  const { file } = options;
  let db: Database.Database;
  try {
    db = openDatabase(file, options.synchronous ?? 'normal');
  } catch (err) {
    // A file damaged where opening reads (its header or schema pages) is the same finding as quick_check's.
    if (isCorruption(err)) throw damaged(file, `opening it: ${describeSqliteError(err)}`, err);
    throw new HookwiseError(
      'HW_E_STORE',
      `cannot open the SQLite store at ${file}: ${describeSqliteError(err)}; check that the directory is writable and the file is a Hookwise store, or set store.path`,
      { cause: err },
    );
  }
  try {
    checkIntegrity(db, file);
    migrate(db, file, SCHEMA_VERSION, (from, to) => {
      // A fresh file starts at 0; an existing one may take a while (versions 3 and 4 rebuild the jobs table once each).
      if (from > 0) options.logger?.info(`SQLite store: upgrading ${file} from schema ${from} to ${to}`);
    });
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  } catch (err) {
    db.close();
    if (err instanceof HookwiseError) throw err;
    throw new HookwiseError(
      'HW_E_STORE',
      `cannot open the SQLite store at ${file}: ${describeSqliteError(err)}; check that the directory is writable and the file is a Hookwise store, or set store.path`,
      { cause: err },
    );
  }
  const now = options.now ?? Date.now;
  const writes = new WriteBatch(db, undefined, now);
  const heartbeat = new InstanceHeartbeat(db, writes, now, options.heartbeatMs ?? 1000, options.staleAfterMs ?? 5000);
  const deliveryIds = new SqliteDeliveryIdCache(db, writes, now);
  const jobs = new SqliteJobQueue(db, writes, heartbeat, { now, doneRetentionMs: options.doneRetentionMs ?? 7 * 24 * 60 * 60 * 1000 });
  const progress = new SqliteProgressKV(db, writes, now);
  const memos = new SqliteMemoKV(db, writes, now);
  const outbox = new SqliteOutbox(db, writes, now);
  const counters = new SqliteWindowCounters(db, writes, now);
  const purge = async (): Promise<void> => {
    await Promise.all([deliveryIds.purge(), jobs.purgeDone(), heartbeat.purge(), progress.purge(), memos.purge(), counters.purge()]);
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
        options.logger?.warn(`SQLite store: the checkpoint thread failed (${describeSqliteError(err)}); checkpointing on the main thread again`);
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
      // The SPEC's order of answers, but only accepted work is counted: a replayed (duplicate) or ignored event
      // never uses up the route's window. One transaction, so the peek and the count see the same window.
      const window = rateLimiter.peekNow(route, request.rateLimit);
      if (!window.allowed) return { outcome: 'rate_limited', retryAfterSeconds: window.retryAfterSeconds };
      if (deliveryIds.claimedNow(route, deliveryId)) return { outcome: 'duplicate' };
      if (!job) {
        deliveryIds.rememberNow(route, deliveryId);
        return { outcome: 'ignored' };
      }
      if (jobs.pendingNow() >= request.maxPending) return { outcome: 'backpressure' };
      rateLimiter.hitNow(route, request.rateLimit);
      const placed = jobs.placeNow(job, request.hints ?? {}, now());
      // A new job's row claims the delivery id (SqliteDeliveryIdCache); an event merged into a waiting job
      // (coalescing) claims its id with a row of its own, in the same transaction as the merge.
      if (!placed.merged) return { outcome: 'accepted', jobId: placed.id };
      deliveryIds.rememberNow(route, deliveryId);
      return { outcome: 'accepted', jobId: placed.id, coalesced: true };
    }, ACCEPT_LOCK_WAIT_MS);
    if (result.outcome === 'accepted' && !result.coalesced) jobs.afterInsert(job as JobInput);
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
    progress,
    memos,
    outbox,
    counters,
    accept,
    purge,
    synchronousMode: () => (db.pragma('synchronous', { simple: true }) === 2 ? 'full' : 'normal'),
    health: () => {
      const state = writes.health();
      return state.ok ? { ok: true } : { ok: false, reason: state.reason };
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(purger);
      heartbeat.stop();
      await jobs.close();
      writes.close();
      await checkpointer?.stop();
      db.close();
    },
  };
}

/** The entry point the server calls for `store.backend: sqlite`. */
export async function createStore(options: { config: SqliteStoreConfig; configDir: string; logger: Logger }): Promise<Store> {
  const file = resolveStoreFile(options.config, options.configDir);
  const days = options.config.retention?.jobs_days ?? DEFAULT_JOBS_RETENTION_DAYS;
  const store = openSqliteStore({ file, logger: options.logger, synchronous: options.config.synchronous, doneRetentionMs: days * DAY_MS });
  options.logger.debug?.(`SQLite store at ${file}`);
  return store;
}
