// The job queue's prepared statements: every query the SQLite queue runs on the jobs table, prepared once.
import { COALESCE_MAX_EVENTS } from '@hookwise/core';
import type { Database, Statement } from 'better-sqlite3';
import { COALESCING, FRESH } from './job-row';

export type JobStatements = Record<
  | 'insert'
  | 'insertKeyed'
  | 'merge'
  | 'addCoalescedId'
  | 'maxSeq'
  | 'nextRunAt'
  | 'legacySeq'
  | 'countInserted'
  | 'fresh'
  | 'requeuedDue'
  | 'readMark'
  | 'saveMark'
  | 'orphan'
  | 'keyBusy'
  | 'take'
  | 'renew'
  | 'saveAnswer'
  | 'saveDestinations'
  | 'complete'
  | 'fail'
  | 'release'
  | 'retryDead'
  | 'pending'
  | 'get'
  | 'byDelivery'
  | 'byCoalescedId'
  | 'purgeDone'
  | 'countPurgeable'
  | 'purgeCoalescedIds'
  | 'purgeLegacyIds',
  Statement
>;

export function prepareJobStatements(db: Database): JobStatements {
  return {
    insert: db.prepare(`
      INSERT INTO jobs (seq, id, route, event, delivery_id, payload, received_at, status, step, attempts, errors, run_at, created_at, updated_at, route_def)
      VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 'agent', 0, '[]', ?, ?, ?, ?)`),
    // A job with a coalesce or concurrency key: its own statement, so the common insert stays as it was.
    insertKeyed: db.prepare(`
      INSERT INTO jobs (seq, id, route, event, delivery_id, payload, received_at, status, step, attempts, errors, run_at, created_at, updated_at, route_def,
        requeued, coalesce_key, concurrency_key, coalesced)
      VALUES (@seq, @id, @route, @event, @deliveryId, @payload, @receivedAt, 'pending', 'agent', 0, '[]', @runAt, @now, @now, @routeDef,
        @requeued, @coalesceKey, @concurrencyKey, @coalesced)`),
    // An event joins the newest job of its route and coalesce key that was never leased, unless that job is
    // full (core's JobInput.coalesce). The job's first event decided the mode: a payloads list means `all`.
    merge: db.prepare(`
      UPDATE jobs SET event = @event, payload = @payload, updated_at = @now,
        coalesced = CASE WHEN json_type(coalesced, '$.payloads') = 'array'
          THEN json_insert(coalesced, '$.deliveryIds[#]', @deliveryId, '$.payloads[#]', json(@payload))
          ELSE json_insert(coalesced, '$.deliveryIds[#]', @deliveryId) END
      WHERE seq = (SELECT seq FROM jobs WHERE route = @route AND coalesce_key = @key AND status = 'pending' AND requeued = ${COALESCING} ORDER BY seq DESC LIMIT 1)
        AND json_array_length(coalesced, '$.deliveryIds') < ${COALESCE_MAX_EVENTS}
      RETURNING *`),
    addCoalescedId: db.prepare('INSERT INTO coalesced_ids (delivery_id, seq) VALUES (?, ?) ON CONFLICT DO NOTHING'),
    maxSeq: db.prepare('SELECT COALESCE(MAX(seq), 0) FROM jobs').pluck(),
    // Ids of jobs written before schema 4 carry no seq.
    legacySeq: db.prepare('SELECT seq FROM legacy_job_ids WHERE id = ?').pluck(),
    // Inserts are counted once per transaction (schema 3); status changes and deletes by triggers.
    countInserted: db.prepare(`UPDATE job_counts SET n = n + ? WHERE status = 'pending'`),
    // Waiting jobs come from two places (schema 5): those that never left the queue, in seq order above the
    // watermark (a range of the table's key), and those put back (`requeued`), through jobs_requeued.
    // Both are read from a cursor, so that the lease can pass jobs whose concurrency key is busy.
    fresh: db.prepare(`SELECT seq, run_at, route, concurrency_key FROM jobs WHERE seq > ? AND status = 'pending' AND requeued = ${FRESH} ORDER BY seq LIMIT 1`),
    requeuedDue: db.prepare(`
      SELECT seq, run_at, route, concurrency_key FROM jobs
      WHERE status = 'pending' AND requeued > 0 AND run_at <= @now AND (run_at, seq) > (@afterRunAt, @afterSeq)
      ORDER BY run_at, seq LIMIT 1`),
    // Only put-back and coalescing jobs wait for a later time (a retry's backoff, a window); a new job is due when
    // it is written. A due job passed for its busy concurrency key is woken by the end of the run it waits for.
    nextRunAt: db.prepare(`SELECT MIN(run_at) FROM jobs WHERE status = 'pending' AND requeued > 0 AND run_at > ?`).pluck(),
    readMark: db.prepare(`SELECT seq FROM queue_marks WHERE name = 'fresh'`).pluck(),
    // Any process's watermark is a true one once committed (see lease), so the highest is kept.
    saveMark: db.prepare(`UPDATE queue_marks SET seq = MAX(seq, ?) WHERE name = 'fresh'`),
    // Running jobs whose lease ran out, or whose gateway stopped beating (killed): both are taken over.
    orphan: db.prepare(`
      SELECT seq, run_at, route, concurrency_key FROM jobs WHERE status = 'running' AND (run_at, seq) > (@afterRunAt, @afterSeq)
        AND (lease_until <= @now OR lease_instance IS NULL OR lease_instance NOT IN (SELECT id FROM instances WHERE seen_at > @stale))
      ORDER BY run_at, seq LIMIT 1`),
    // Another job of the route and concurrency key runs under a live lease (neither run out nor held by a gateway that stopped beating).
    keyBusy: db
      .prepare(
        `
      SELECT 1 FROM jobs WHERE route = @route AND concurrency_key = @key AND status = 'running'
        AND lease_until > @now AND lease_instance IN (SELECT id FROM instances WHERE seen_at > @stale)
      LIMIT 1`,
      )
      .pluck(),
    // A hold's note said why the job waited; it runs now.
    take: db.prepare(`
      UPDATE jobs SET status = 'running', attempts = attempts + 1, updated_at = @now, note = NULL,
        lease_owner = @owner, lease_instance = @instance, lease_until = @until
      WHERE seq = @seq RETURNING *`),
    // A job is addressed by its seq (the table's key) and its id, which must match: a stale id finds nothing.
    renew: db.prepare(`UPDATE jobs SET lease_until = @until WHERE seq = @seq AND id = @id AND status = 'running' AND lease_owner = @owner`),
    saveAnswer: db.prepare(
      `UPDATE jobs SET prompt = @prompt, answer = @answer, usage = @usage, step = 'deliver', attempts = 1, updated_at = @now WHERE seq = @seq AND id = @id`,
    ),
    saveDestinations: db.prepare(`UPDATE jobs SET destinations = @destinations, updated_at = @now WHERE seq = @seq AND id = @id`),
    // complete and fail return the job's concurrency key: the jobs waiting for it may run now.
    complete: db.prepare(`
      UPDATE jobs SET status = 'done', receipt = @receipt, outcome = @outcome, note = @note, updated_at = @now, finished_at = @now,
        lease_owner = NULL, lease_instance = NULL, lease_until = NULL
      WHERE seq = @seq AND id = @id
      RETURNING concurrency_key`),
    fail: db.prepare(`
      UPDATE jobs SET status = @status, requeued = 1, errors = json_insert(errors, '$[#]', json(@error)), run_at = @runAt,
        updated_at = @now, finished_at = @finishedAt, lease_owner = NULL, lease_instance = NULL, lease_until = NULL
      WHERE seq = @seq AND id = @id
      RETURNING concurrency_key`),
    // Without a hold the job keeps its run_at, which has passed: due at once.
    release: db.prepare(`
      UPDATE jobs SET status = 'pending', requeued = 1, attempts = MAX(0, attempts - 1), updated_at = @now,
        run_at = COALESCE(@runAt, run_at), note = @note, lease_owner = NULL, lease_instance = NULL, lease_until = NULL
      WHERE seq = @seq AND id = @id AND status = 'running'`),
    retryDead: db.prepare(`
      UPDATE jobs SET status = 'pending', requeued = 1, attempts = 0, run_at = @now, updated_at = @now, finished_at = NULL
      WHERE seq = @seq AND id = @id AND status = 'dead'`),
    // Kept by the store and its triggers (schema versions 2 and 3): one row read, however long the queue.
    pending: db.prepare(`SELECT COALESCE(SUM(n), 0) FROM job_counts WHERE status IN ('pending', 'running')`).pluck(),
    get: db.prepare('SELECT * FROM jobs WHERE seq = @seq AND id = @id'),
    byDelivery: db.prepare('SELECT * FROM jobs WHERE delivery_id = ? ORDER BY seq DESC LIMIT 1'),
    byCoalescedId: db.prepare(
      'SELECT jobs.* FROM coalesced_ids JOIN jobs ON jobs.seq = coalesced_ids.seq WHERE coalesced_ids.delivery_id = ? ORDER BY jobs.seq DESC LIMIT 1',
    ),
    // The newest row always stays: a seq is never given out twice, or a new job could fall under a watermark.
    purgeDone: db.prepare(`DELETE FROM jobs WHERE status = 'done' AND finished_at <= ? AND seq < (SELECT MAX(seq) FROM jobs)`),
    countPurgeable: db.prepare(`SELECT COUNT(*) FROM jobs WHERE status = 'done' AND finished_at <= ? AND seq < (SELECT MAX(seq) FROM jobs)`).pluck(),
    purgeLegacyIds: db.prepare('DELETE FROM legacy_job_ids WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.seq = legacy_job_ids.seq)'),
    purgeCoalescedIds: db.prepare('DELETE FROM coalesced_ids WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.seq = coalesced_ids.seq)'),
  };
}
