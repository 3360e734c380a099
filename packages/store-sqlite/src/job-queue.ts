// The job queue in SQLite: jobs survive restarts, leases expire, and a dead gateway's jobs are taken over.
import { EventEmitter } from 'node:events';
import {
  type DestinationState,
  type EnqueueHints,
  type Job,
  type JobError,
  type JobFilter,
  type JobInput,
  type JobQueue,
  type JobRoute,
  type JobStatus,
  type JobStep,
} from '@hookwise/core';
import type { Database, Statement } from 'better-sqlite3';
import type { InstanceHeartbeat } from './heartbeat';
import { JobIdFormat, seqInJobId } from './job-ids';
import type { WriteBatch } from './write-batch';

interface JobRow {
  seq: number;
  id: string;
  route: string;
  event: string;
  delivery_id: string;
  payload: string;
  received_at: number;
  status: JobStatus;
  step: JobStep;
  attempts: number;
  prompt: string | null;
  answer: string | null;
  receipt: string | null;
  errors: string;
  run_at: number;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  route_def: string | null;
  destinations: string | null;
}

function toJob(row: JobRow): Job {
  const job: Job = {
    id: row.id,
    route: row.route,
    event: row.event,
    deliveryId: row.delivery_id,
    payload: JSON.parse(row.payload) as unknown,
    receivedAt: row.received_at,
    status: row.status,
    step: row.step,
    attempts: row.attempts,
    errors: JSON.parse(row.errors) as JobError[],
    runAt: row.run_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.prompt !== null) job.prompt = row.prompt;
  if (row.answer !== null) job.answer = row.answer;
  if (row.receipt !== null) job.receipt = JSON.parse(row.receipt) as unknown;
  if (row.finished_at !== null) job.finishedAt = row.finished_at;
  if (row.route_def !== null) job.routeDefinition = JSON.parse(row.route_def) as JobRoute;
  if (row.destinations !== null) job.destinations = JSON.parse(row.destinations) as DestinationState[];
  return job;
}

export interface SqliteJobQueueOptions {
  now: () => number;
  /** Done jobs older than this are deleted; dead letters are never deleted. */
  doneRetentionMs: number;
}

export class SqliteJobQueue implements JobQueue {
  private readonly events = new EventEmitter();
  private wakeTimer?: NodeJS.Timeout;
  private wakeAt = Infinity;
  /** job_counts as read in the current transaction (without its inserts), and the jobs it inserted so far. */
  private countedInTransaction?: number;
  private insertedInTransaction = 0;
  /** The seq of the last job inserted in the current transaction (read once, under its write lock). */
  private lastSeqInTransaction?: number;
  private inTransaction = false;
  /**
   * The watermark of jobs that never left the queue (schema 5): none is waiting at or below this seq, so they
   * are found in seq order above it, without an index entry each. Read from queue_marks on first use; back to
   * its value at the start of a transaction that fails.
   */
  private freshMark?: number;
  private freshMarkAtTransactionStart?: number;
  private freshMarkSavedAt = 0;
  private readonly ids = new JobIdFormat();
  private readonly stmt: Record<
    | 'insert'
    | 'maxSeq'
    | 'nextRunAt'
    | 'legacySeq'
    | 'countInserted'
    | 'fresh'
    | 'requeuedDue'
    | 'readMark'
    | 'saveMark'
    | 'orphan'
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
    | 'purgeDone'
    | 'purgeLegacyIds',
    Statement
  >;

  constructor(
    private readonly db: Database,
    private readonly writes: WriteBatch,
    private readonly heartbeat: InstanceHeartbeat,
    private readonly options: SqliteJobQueueOptions,
  ) {
    this.events.setMaxListeners(0);
    this.stmt = {
      insert: db.prepare(`
        INSERT INTO jobs (seq, id, route, event, delivery_id, payload, received_at, status, step, attempts, errors, run_at, created_at, updated_at, route_def)
        VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 'agent', 0, '[]', ?, ?, ?, ?)`),
      maxSeq: db.prepare('SELECT COALESCE(MAX(seq), 0) FROM jobs').pluck(),
      // Ids of jobs written before schema 4 carry no seq.
      legacySeq: db.prepare('SELECT seq FROM legacy_job_ids WHERE id = ?').pluck(),
      // Inserts are counted once per transaction (schema 3); status changes and deletes by triggers.
      countInserted: db.prepare(`UPDATE job_counts SET n = n + ? WHERE status = 'pending'`),
      // Waiting jobs come from two places (schema 5): those that never left the queue, in seq order above the
      // watermark (a range of the table's key), and those put back (`requeued`), through jobs_requeued.
      fresh: db.prepare(`SELECT seq, run_at FROM jobs WHERE seq > ? AND status = 'pending' AND requeued = 0 ORDER BY seq LIMIT 1`),
      requeuedDue: db.prepare(`SELECT seq, run_at FROM jobs WHERE status = 'pending' AND requeued = 1 AND run_at <= ? ORDER BY run_at, seq LIMIT 1`),
      // Only put-back jobs wait for a later time (a retry's backoff); a new job is due when it is written.
      nextRunAt: db.prepare(`SELECT MIN(run_at) FROM jobs WHERE status = 'pending' AND requeued = 1`).pluck(),
      readMark: db.prepare(`SELECT seq FROM queue_marks WHERE name = 'fresh'`).pluck(),
      // Any process's watermark is a true one once committed (see lease), so the highest is kept.
      saveMark: db.prepare(`UPDATE queue_marks SET seq = MAX(seq, ?) WHERE name = 'fresh'`),
      // Running jobs whose lease ran out, or whose gateway stopped beating (killed): both are taken over.
      orphan: db.prepare(`
        SELECT seq FROM jobs WHERE status = 'running'
          AND (lease_until <= @now OR lease_instance IS NULL OR lease_instance NOT IN (SELECT id FROM instances WHERE seen_at > @stale))
        ORDER BY run_at, seq LIMIT 1`),
      take: db.prepare(`
        UPDATE jobs SET status = 'running', attempts = attempts + 1, updated_at = @now,
          lease_owner = @owner, lease_instance = @instance, lease_until = @until
        WHERE seq = @seq RETURNING *`),
      // A job is addressed by its seq (the table's key) and its id, which must match: a stale id finds nothing.
      renew: db.prepare(`UPDATE jobs SET lease_until = @until WHERE seq = @seq AND id = @id AND status = 'running' AND lease_owner = @owner`),
      saveAnswer: db.prepare(
        `UPDATE jobs SET prompt = @prompt, answer = @answer, step = 'deliver', attempts = 1, updated_at = @now WHERE seq = @seq AND id = @id`,
      ),
      saveDestinations: db.prepare(`UPDATE jobs SET destinations = @destinations, updated_at = @now WHERE seq = @seq AND id = @id`),
      complete: db.prepare(`
        UPDATE jobs SET status = 'done', receipt = @receipt, updated_at = @now, finished_at = @now,
          lease_owner = NULL, lease_instance = NULL, lease_until = NULL
        WHERE seq = @seq AND id = @id`),
      fail: db.prepare(`
        UPDATE jobs SET status = @status, requeued = 1, errors = json_insert(errors, '$[#]', json(@error)), run_at = @runAt,
          updated_at = @now, finished_at = @finishedAt, lease_owner = NULL, lease_instance = NULL, lease_until = NULL
        WHERE seq = @seq AND id = @id`),
      release: db.prepare(`
        UPDATE jobs SET status = 'pending', requeued = 1, attempts = MAX(0, attempts - 1), updated_at = @now,
          lease_owner = NULL, lease_instance = NULL, lease_until = NULL
        WHERE seq = @seq AND id = @id AND status = 'running'`),
      retryDead: db.prepare(`
        UPDATE jobs SET status = 'pending', requeued = 1, attempts = 0, run_at = @now, updated_at = @now, finished_at = NULL
        WHERE seq = @seq AND id = @id AND status = 'dead'`),
      // Kept by the store and its triggers (schema versions 2 and 3): one row read, however long the queue.
      pending: db.prepare(`SELECT COALESCE(SUM(n), 0) FROM job_counts WHERE status IN ('pending', 'running')`).pluck(),
      get: db.prepare('SELECT * FROM jobs WHERE seq = @seq AND id = @id'),
      byDelivery: db.prepare('SELECT * FROM jobs WHERE delivery_id = ? ORDER BY seq DESC LIMIT 1'),
      // The newest row always stays: a seq is never given out twice, or a new job could fall under a watermark.
      purgeDone: db.prepare(`DELETE FROM jobs WHERE status = 'done' AND finished_at <= ? AND seq < (SELECT MAX(seq) FROM jobs)`),
      purgeLegacyIds: db.prepare('DELETE FROM legacy_job_ids WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.seq = legacy_job_ids.seq)'),
    };
  }

  private now(): number {
    return this.options.now();
  }

  /** How statements address a job: its seq (from the id, or for an id of schema 3 or older, looked up) and its id. */
  private keyOf(id: string): { seq: number; id: string } {
    const seq = seqInJobId(id) ?? (this.stmt.legacySeq.get(id) as number | undefined) ?? -1;
    return { seq, id };
  }

  async enqueue(input: JobInput, hints: EnqueueHints = {}): Promise<Job> {
    const now = this.now();
    const id = await this.writes.run(() => this.insertNow(input, hints, now));
    this.announce();
    // The row is not read back: the new job is exactly what was inserted.
    return { ...input, id, status: 'pending', step: 'agent', attempts: 0, errors: [], runAt: now, createdAt: now, updatedAt: now };
  }

  /** Inserts a pending job and returns its id; only inside a WriteBatch operation. */
  insertNow(input: JobInput, hints: EnqueueHints, now: number): string {
    // The pipeline hands over the JSON text it parsed, so a payload is never serialised twice.
    const payload = hints.payloadJson ?? JSON.stringify(input.payload ?? null);
    this.joinTransaction();
    // The seq is chosen here (the next after the largest, as SQLite would) so that the id can carry it; the
    // transaction holds the write lock, so no other process inserts in between.
    this.lastSeqInTransaction ??= this.stmt.maxSeq.get() as number;
    const seq = this.lastSeqInTransaction + 1;
    const id = this.ids.format(seq, now);
    const routeDef = input.routeDefinition === undefined ? null : (hints.routeDefinitionJson ?? JSON.stringify(input.routeDefinition));
    this.stmt.insert.run(seq, id, input.route, input.event, input.deliveryId, payload, input.receivedAt, now, now, now, routeDef);
    this.lastSeqInTransaction = seq;
    this.insertedInTransaction += 1;
    return id;
  }

  /**
   * Jobs waiting or running, inside the current WriteBatch operation: job_counts is read once per transaction,
   * plus the jobs inserted since it began (leases and completions of the same transaction only lower the true
   * number, so the count errs towards backpressure, never past the limit).
   */
  pendingNow(): number {
    this.joinTransaction();
    this.countedInTransaction ??= this.stmt.pending.get() as number;
    return this.countedInTransaction + this.insertedInTransaction;
  }

  /** At the end of the transaction: its inserts go into job_counts with one write; the per-transaction state resets. */
  private joinTransaction(): void {
    if (this.inTransaction) return;
    this.inTransaction = true;
    this.freshMarkAtTransactionStart = this.freshMark;
    const reset = (): void => {
      this.countedInTransaction = undefined;
      this.insertedInTransaction = 0;
      this.lastSeqInTransaction = undefined;
      this.inTransaction = false;
    };
    this.writes.hook({
      finish: () => {
        if (this.insertedInTransaction > 0) this.stmt.countInserted.run(this.insertedInTransaction);
        this.saveFreshMark();
        reset();
      },
      discard: () => {
        this.freshMark = this.freshMarkAtTransactionStart;
        reset();
      },
    });
  }

  /** Wakes idle workers: a job was added (after its commit). */
  announce(): void {
    this.events.emit('ready');
  }

  async lease(owner: string, leaseMs: number): Promise<Job | undefined> {
    const instance = this.heartbeat.start();
    const job = await this.writes.run(() => {
      const now = this.now();
      const pick = this.dueNow(now) ?? (this.stmt.orphan.get({ now, stale: now - this.heartbeat.staleAfterMs }) as { seq: number } | undefined);
      if (!pick) return undefined;
      return toJob(this.stmt.take.get({ seq: pick.seq, now, owner, instance, until: now + leaseMs }) as JobRow);
      // One attempt while the file is locked elsewhere: the worker asks again at its next poll.
    }, 0);
    if (!job) this.scheduleWake();
    return job;
  }

  /**
   * The waiting job to run next, inside the lease's operation: the earlier by (run_at, seq) of the first job
   * above the watermark that never left the queue and the first put-back job that is due. The watermark moves
   * up to the job taken, or to the top of the table when no such job is left: nothing waiting can be below it
   * afterwards, since a new job gets a seq above every row (the top row is never purged) and a job that goes
   * back to the queue is marked requeued. Moves made by a transaction that fails are undone (joinTransaction).
   */
  private dueNow(now: number): { seq: number } | undefined {
    this.joinTransaction();
    this.freshMark ??= (this.stmt.readMark.get() as number | undefined) ?? 0;
    const fresh = this.stmt.fresh.get(this.freshMark) as { seq: number; run_at: number } | undefined;
    const requeued = this.stmt.requeuedDue.get(now) as { seq: number; run_at: number } | undefined;
    if (!fresh) {
      this.freshMark = this.stmt.maxSeq.get() as number;
      return requeued;
    }
    const freshFirst = fresh.run_at <= now && (!requeued || fresh.run_at < requeued.run_at || (fresh.run_at === requeued.run_at && fresh.seq < requeued.seq));
    if (!freshFirst) {
      this.freshMark = fresh.seq - 1;
      return requeued;
    }
    this.freshMark = fresh.seq;
    return fresh;
  }

  /** Stores the watermark for the next process to open the file (at most once a second: it is only a shortcut). */
  private saveFreshMark(): void {
    if (this.freshMark === undefined || this.freshMark === this.freshMarkAtTransactionStart) return;
    const at = this.now();
    if (at - this.freshMarkSavedAt < 1000) return;
    this.stmt.saveMark.run(this.freshMark);
    this.freshMarkSavedAt = at;
  }

  /** Wakes idle workers when the earliest delayed retry becomes due. */
  private scheduleWake(): void {
    const next = this.stmt.nextRunAt.get() as number | null;
    if (next === null || next >= this.wakeAt) return;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeAt = next;
    this.wakeTimer = setTimeout(
      () => {
        this.wakeAt = Infinity;
        this.events.emit('ready');
      },
      Math.max(0, next - this.now()),
    );
    this.wakeTimer.unref();
  }

  async renew(jobId: string, owner: string, leaseMs: number): Promise<boolean> {
    return this.writes.run(() => this.stmt.renew.run({ ...this.keyOf(jobId), owner, until: this.now() + leaseMs }).changes === 1);
  }

  private async change(stmt: Statement, params: Record<string, unknown>): Promise<number> {
    return this.writes.run(() => stmt.run({ ...params, now: this.now() }).changes);
  }

  private async mustChange(jobId: string, stmt: Statement, params: Record<string, unknown>): Promise<void> {
    if ((await this.change(stmt, { ...params, ...this.keyOf(jobId) })) === 0) throw new Error(`no job ${jobId} in the SQLite store`);
  }

  /** The first delivery attempt runs at once under the same lease, so the delivery step starts at attempt 1. */
  saveAnswer(jobId: string, prompt: string, answer: string): Promise<void> {
    return this.mustChange(jobId, this.stmt.saveAnswer, { prompt, answer });
  }

  saveDestinations(jobId: string, destinations: DestinationState[]): Promise<void> {
    return this.mustChange(jobId, this.stmt.saveDestinations, { destinations: JSON.stringify(destinations) });
  }

  complete(jobId: string, receipt: unknown): Promise<void> {
    return this.mustChange(jobId, this.stmt.complete, { receipt: JSON.stringify(receipt ?? null) });
  }

  async fail(jobId: string, error: JobError, retryAt: number | null): Promise<void> {
    const now = this.now();
    await this.mustChange(jobId, this.stmt.fail, {
      error: JSON.stringify(error),
      status: retryAt === null ? 'dead' : 'pending',
      runAt: retryAt ?? now,
      finishedAt: retryAt === null ? now : null,
    });
    if (retryAt !== null) this.scheduleWake();
  }

  async release(jobId: string): Promise<void> {
    if ((await this.change(this.stmt.release, this.keyOf(jobId))) > 0) this.events.emit('ready');
  }

  async retryDead(jobId: string): Promise<boolean> {
    const changed = (await this.change(this.stmt.retryDead, this.keyOf(jobId))) > 0;
    if (changed) this.events.emit('ready');
    return changed;
  }

  async pendingCount(): Promise<number> {
    // Outside a transaction: what is committed (a WriteBatch operation never runs between awaits).
    return this.stmt.pending.get() as number;
  }

  async get(id: string): Promise<Job | undefined> {
    const row = this.stmt.get.get(this.keyOf(id)) as JobRow | undefined;
    return row && toJob(row);
  }

  async findByDeliveryId(deliveryId: string): Promise<Job | undefined> {
    const row = this.stmt.byDelivery.get(deliveryId) as JobRow | undefined;
    return row && toJob(row);
  }

  async list(filter: JobFilter = {}): Promise<Job[]> {
    const where: string[] = [];
    const params: Record<string, unknown> = {};
    if (filter.status) {
      where.push('status = @status');
      params.status = filter.status;
    }
    if (filter.route) {
      where.push('route = @route');
      params.route = filter.route;
    }
    // Newest first: seq is the insertion order (no index on created_at to keep up on every insert).
    const sql = `SELECT * FROM jobs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC${filter.limit ? ' LIMIT @limit' : ''}`;
    if (filter.limit) params.limit = filter.limit;
    return (this.db.prepare(sql).all(params) as JobRow[]).map(toJob);
  }

  onReady(listener: () => void): () => void {
    this.events.on('ready', listener);
    return () => this.events.off('ready', listener);
  }

  /** Deletes done jobs past their retention; dead letters stay until someone retries or inspects them. */
  purgeDone(): Promise<number> {
    return this.writes.run(() => {
      const deleted = this.stmt.purgeDone.run(this.now() - this.options.doneRetentionMs).changes;
      if (deleted > 0) this.stmt.purgeLegacyIds.run();
      return deleted;
    });
  }

  async close(): Promise<void> {
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
  }
}
