// The SQLite schema and its migrations, keyed by `PRAGMA user_version`.
import type { Database } from 'better-sqlite3';

/**
 * Rebuilds the jobs table from its current definition changed by `change` (SQLite cannot drop a column
 * constraint in place): rows copied in seq order, its indexes and triggers re-created as they were, except
 * those named in `dropped`.
 */
function rebuildJobs(db: Database, change: (table: string) => string, dropped: string[] = []): void {
  const table = db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'jobs'`).pluck().get() as string;
  const kept = (
    db.prepare(`SELECT name, sql FROM sqlite_master WHERE tbl_name = 'jobs' AND type IN ('index', 'trigger') AND sql IS NOT NULL`).all() as Array<{
      name: string;
      sql: string;
    }>
  )
    .filter((entry) => !dropped.includes(entry.name))
    .map((entry) => entry.sql);
  const columns = (db.prepare(`SELECT name FROM pragma_table_info('jobs')`).pluck().all() as string[]).join(', ');
  // A table rebuilt before (version 3) was renamed into place, so SQLite keeps its name quoted: CREATE TABLE "jobs".
  const named = table.replace(/^CREATE TABLE "?jobs"?/, 'CREATE TABLE jobs_new');
  const rebuilt = change(named);
  if (!named.startsWith('CREATE TABLE jobs_new') || rebuilt === named) throw new Error(`unexpected jobs table in the SQLite store: ${table}`);
  db.exec(rebuilt);
  db.exec(`
    INSERT INTO jobs_new (${columns}) SELECT ${columns} FROM jobs ORDER BY seq;
    DROP TABLE jobs;
    ALTER TABLE jobs_new RENAME TO jobs;
  `);
  for (const sql of kept) db.exec(sql);
}

/** A migration: SQL to run, or a function for one that needs to read the schema first. */
type Migration = string | ((db: Database) => void);

const MIGRATIONS: Migration[] = [
  // 1: delivery ids, rate windows, jobs, and the heartbeats that tell a live gateway from a dead one.
  `
  CREATE TABLE delivery_ids (
    route TEXT NOT NULL,
    delivery_id TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (route, delivery_id)
  ) WITHOUT ROWID;
  CREATE INDEX delivery_ids_expiry ON delivery_ids (expires_at);

  CREATE TABLE rate_windows (
    route TEXT PRIMARY KEY,
    window_start INTEGER NOT NULL,
    count INTEGER NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE jobs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    route TEXT NOT NULL,
    event TEXT NOT NULL,
    delivery_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    received_at INTEGER NOT NULL,
    status TEXT NOT NULL,
    step TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    prompt TEXT,
    answer TEXT,
    receipt TEXT,
    errors TEXT NOT NULL,
    run_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    finished_at INTEGER,
    lease_owner TEXT,
    lease_instance TEXT,
    lease_until INTEGER
  );
  CREATE INDEX jobs_due ON jobs (status, run_at);
  CREATE INDEX jobs_delivery_id ON jobs (delivery_id);
  CREATE INDEX jobs_route ON jobs (route, created_at);
  CREATE INDEX jobs_finished ON jobs (status, finished_at);

  CREATE TABLE instances (
    id TEXT PRIMARY KEY,
    seen_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // 2: jobs per status kept by triggers (backpressure reads one row instead of counting the queue), and the
  // finished-jobs index only over finished jobs, so accepting a job does not write to it.
  `
  CREATE TABLE job_counts (
    status TEXT PRIMARY KEY,
    n INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO job_counts (status, n)
    SELECT s.status, (SELECT COUNT(*) FROM jobs WHERE jobs.status = s.status)
    FROM (SELECT 'pending' AS status UNION ALL SELECT 'running' UNION ALL SELECT 'done' UNION ALL SELECT 'dead') AS s;
  CREATE TRIGGER jobs_count_insert AFTER INSERT ON jobs BEGIN
    UPDATE job_counts SET n = n + 1 WHERE status = NEW.status;
  END;
  CREATE TRIGGER jobs_count_delete AFTER DELETE ON jobs BEGIN
    UPDATE job_counts SET n = n - 1 WHERE status = OLD.status;
  END;
  CREATE TRIGGER jobs_count_update AFTER UPDATE OF status ON jobs WHEN OLD.status <> NEW.status BEGIN
    UPDATE job_counts SET n = n - 1 WHERE status = OLD.status;
    UPDATE job_counts SET n = n + 1 WHERE status = NEW.status;
  END;
  DROP INDEX jobs_finished;
  CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;
  `,
  // 3: less to write per accepted event (docs/performance.md). The jobs table is rebuilt without AUTOINCREMENT
  // (which updated sqlite_sequence on every insert) and without jobs_route (lists read newest first by seq); the
  // insert trigger goes (the store adds a transaction's inserts to job_counts once, at its end); and an accepted
  // event's delivery id is no longer written to delivery_ids as well: its job row, found through
  // jobs_delivery_id, is the claim. delivery_ids keeps the ids of events the route's filter ignored.
  (db) => {
    rebuildJobs(db, (table) => table.replace(/\s+AUTOINCREMENT\b/, ''), ['jobs_route', 'jobs_count_insert']);
    db.exec(`
      DELETE FROM sqlite_sequence WHERE name = 'jobs';
      UPDATE job_counts SET n = (SELECT COUNT(*) FROM jobs WHERE jobs.status = job_counts.status);
    `);
  },
  // 4: no index on the job id (one B-tree less per accepted event, docs/performance.md). A job id now carries
  // its row's seq (job-ids.ts), so a lookup goes through the table itself; the ids of jobs written by older
  // versions are kept, found through legacy_job_ids (written here once, never on insert).
  (db) => {
    db.exec(`
      CREATE TABLE legacy_job_ids (
        id TEXT PRIMARY KEY,
        seq INTEGER NOT NULL
      ) WITHOUT ROWID;
      INSERT INTO legacy_job_ids (id, seq) SELECT id, seq FROM jobs;
    `);
    rebuildJobs(db, (table) => table.replace(/\bid TEXT NOT NULL UNIQUE\b/, 'id TEXT NOT NULL'));
  },
  // 5: no index entry for a newly accepted job (docs/performance.md). Jobs that never left the queue are found
  // in seq order from a watermark (queue_marks.fresh: no such job at or below it); a job put back in the queue
  // (released, failed with a retry, a dead letter retried) is marked `requeued` and found through
  // jobs_requeued; running jobs (for the orphan search) and dead letters have partial indexes of their own.
  // Every job waiting now counts as requeued, so the watermark can start at the top.
  `
  ALTER TABLE jobs ADD COLUMN requeued INTEGER NOT NULL DEFAULT 0;
  UPDATE jobs SET requeued = 1 WHERE status = 'pending';
  DROP INDEX jobs_due;
  CREATE INDEX jobs_requeued ON jobs (run_at, seq) WHERE status = 'pending' AND requeued = 1;
  CREATE INDEX jobs_running ON jobs (run_at, seq) WHERE status = 'running';
  CREATE INDEX jobs_dead ON jobs (seq) WHERE status = 'dead';
  CREATE TABLE queue_marks (
    name TEXT PRIMARY KEY,
    seq INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO queue_marks (name, seq) SELECT 'fresh', COALESCE(MAX(seq), 0) FROM jobs;
  `,
  // 6: the route definition a job was accepted under (JSON, no secrets), so that it still runs when its route
  // is removed before it does. Jobs written before have none and need their route to exist.
  `
  ALTER TABLE jobs ADD COLUMN route_def TEXT;
  `,
  // 7: fan-out and exactly-once delivery: each destination's delivery state on its job (JSON: status,
  // attempts, errors, receipt), and delivery progress (parts a platform accepted, idempotency keys) by key with
  // an expiry, so a restart resumes a half-sent answer instead of sending it again.
  `
  ALTER TABLE jobs ADD COLUMN destinations TEXT;
  CREATE TABLE progress (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX progress_expiry ON progress (expires_at);
  `,
  // 8: spending agent runs where they matter. Per job: the tokens its run used (JSON), how it ended
  // (silent, skipped), a note for people (why it waits), its coalesce and concurrency keys and the events merged
  // into it (JSON: delivery ids, and payloads for mode all). A coalescing job waits for its window from the
  // moment it is written, so it is found by run_at like a put-back job: `requeued` = 2 marks one that has never
  // been leased (jobs_requeued now covers every requeued value above 0), and only such a job takes more events
  // (jobs_coalescing; a job back in the queue after a lease is requeued = 1 and absorbs nothing). The delivery ids
  // merged into a job point at it from coalesced_ids (findByDeliveryId), for as long as the job is kept; their
  // claims for the dedupe hour are ordinary delivery_ids rows. jobs_concurrency finds the running jobs of a route
  // and concurrency key. Budget counters are fixed windows in counters, a row per key, window length and window (a few rows per
  // route, purged by a scan: no index to keep up).
  `
  ALTER TABLE jobs ADD COLUMN usage TEXT;
  ALTER TABLE jobs ADD COLUMN outcome TEXT;
  ALTER TABLE jobs ADD COLUMN note TEXT;
  ALTER TABLE jobs ADD COLUMN coalesce_key TEXT;
  ALTER TABLE jobs ADD COLUMN concurrency_key TEXT;
  ALTER TABLE jobs ADD COLUMN coalesced TEXT;
  DROP INDEX jobs_requeued;
  CREATE INDEX jobs_requeued ON jobs (run_at, seq) WHERE status = 'pending' AND requeued > 0;
  CREATE INDEX jobs_coalescing ON jobs (route, coalesce_key) WHERE status = 'pending' AND requeued = 2;
  CREATE INDEX jobs_concurrency ON jobs (route, concurrency_key) WHERE status = 'running' AND concurrency_key IS NOT NULL;
  CREATE TABLE coalesced_ids (
    delivery_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (delivery_id, seq)
  ) WITHOUT ROWID;
  CREATE TABLE counters (
    key TEXT NOT NULL,
    window_ms INTEGER NOT NULL,
    window_start INTEGER NOT NULL,
    value INTEGER NOT NULL,
    PRIMARY KEY (key, window_ms, window_start)
  ) WITHOUT ROWID;
  `,
  // 9: plugins' memos: a small key-value memory kept across jobs, e.g. the id of a sticky comment that
  // later answers edit. expires_at is NULL for an entry kept until it is overwritten or deleted; only entries with
  // an expiry are indexed for the purge.
  `
  CREATE TABLE memos (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    expires_at INTEGER
  ) WITHOUT ROWID;
  CREATE INDEX memos_expiry ON memos (expires_at) WHERE expires_at IS NOT NULL;
  `,
  // 10: the outbox: messages to other systems (notify: lifecycle webhooks) kept until sent. seq keeps
  // the order added (the oldest is sent first and dropped first when a target is full); due_at is when a message
  // may be claimed next (a claim moves it past the lease, a failure to its retry time).
  `
  CREATE TABLE outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    target TEXT NOT NULL,
    id TEXT NOT NULL,
    body TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    due_at INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX outbox_id ON outbox (target, id);
  CREATE INDEX outbox_due ON outbox (target, due_at);
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the file up to the current schema (or to `target`, which tests use to write files of older
 * versions); refuses a file written by a newer Hookwise. `before` is told the versions first, when there is work.
 */
export function migrate(db: Database, file: string, target = SCHEMA_VERSION, before?: (from: number, to: number) => void): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new Error(
      `${file} has schema version ${current}, newer than this Hookwise understands (${SCHEMA_VERSION}); upgrade Hookwise or point store.path at another file`,
    );
  }
  const apply = db.transaction(() => {
    for (let v = current; v < target; v += 1) {
      const migration = MIGRATIONS[v];
      if (typeof migration === 'string') db.exec(migration);
      else migration(db);
    }
    db.pragma(`user_version = ${target}`);
  });
  if (current >= target) return;
  before?.(current, target);
  apply.immediate();
}
