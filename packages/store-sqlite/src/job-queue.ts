// The job queue in SQLite: jobs survive restarts, leases expire, and a dead gateway's jobs are taken over.
import { EventEmitter } from 'node:events';
import {
  COALESCE_MAX_EVENTS,
  type AgentUsage,
  type CoalescedEvents,
  type DestinationState,
  type EnqueueHints,
  type Job,
  type JobError,
  type JobFilter,
  type JobInput,
  type JobOutcome,
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
  usage: string | null;
  outcome: JobOutcome | null;
  note: string | null;
  coalesce_key: string | null;
  concurrency_key: string | null;
  coalesced: string | null;
}

/** A waiting job as the lease sees it: its place in the queue and what its concurrency check needs. */
interface Candidate {
  seq: number;
  run_at: number;
  route: string;
  concurrency_key: string | null;
}

/** `requeued` (schema 5 and 8): in the queue since it was written and due at once, put back after a lease, or a coalescing job never leased. */
const FRESH = 0;
const COALESCING = 2;

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
  if (row.usage !== null) job.usage = JSON.parse(row.usage) as AgentUsage;
  if (row.outcome !== null) job.outcome = row.outcome;
  if (row.note !== null) job.note = row.note;
  if (row.coalesce_key !== null) job.coalesceKey = row.coalesce_key;
  if (row.concurrency_key !== null) job.concurrencyKey = row.concurrency_key;
  if (row.coalesced !== null) job.coalesced = JSON.parse(row.coalesced) as CoalescedEvents;
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
    | 'purgeCoalescedIds'
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
      fresh: db.prepare(
        `SELECT seq, run_at, route, concurrency_key FROM jobs WHERE seq > ? AND status = 'pending' AND requeued = ${FRESH} ORDER BY seq LIMIT 1`,
      ),
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
      purgeLegacyIds: db.prepare('DELETE FROM legacy_job_ids WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.seq = legacy_job_ids.seq)'),
      purgeCoalescedIds: db.prepare('DELETE FROM coalesced_ids WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.seq = coalesced_ids.seq)'),
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
    const placed = await this.writes.run(() => this.placeNow(input, hints, now));
    if (placed.merged) return toJob(placed.merged);
    this.afterInsert(input);
    // The row is not read back: the new job is exactly what was inserted.
    const job: Job = { ...input, id: placed.id, status: 'pending', step: 'agent', attempts: 0, errors: [], runAt: now, createdAt: now, updatedAt: now };
    if (input.concurrencyKey !== undefined) job.concurrencyKey = input.concurrencyKey;
    if (input.coalesce) {
      job.runAt = input.receivedAt + input.coalesce.windowMs;
      job.coalesceKey = input.coalesce.key;
      job.coalesced = input.coalesce.mode === 'all' ? { deliveryIds: [input.deliveryId], payloads: [input.payload] } : { deliveryIds: [input.deliveryId] };
    }
    return job;
  }

  /**
   * Merges the event into the job of its route and coalesce key that still takes events (core's
   * JobInput.coalesce), or inserts a job; only inside a WriteBatch operation. `merged` is the merged job's row.
   */
  placeNow(input: JobInput, hints: EnqueueHints, now: number): { id: string; merged?: JobRow } {
    if (input.coalesce) {
      const merged = this.mergeNow(input, hints, now);
      if (merged) return { id: merged.id, merged };
    }
    return { id: this.insertNow(input, hints, now) };
  }

  /** After the commit of a new job: due now, idle workers wake; a coalescing job wakes them when its window ends. */
  afterInsert(input: JobInput): void {
    if (input.coalesce && input.receivedAt + input.coalesce.windowMs > this.now()) this.scheduleWake();
    else this.announce();
  }

  private mergeNow(input: JobInput, hints: EnqueueHints, now: number): JobRow | undefined {
    const row = this.stmt.merge.get({
      route: input.route,
      key: input.coalesce?.key,
      event: input.event,
      deliveryId: input.deliveryId,
      payload: hints.payloadJson ?? JSON.stringify(input.payload ?? null),
      now,
    }) as JobRow | undefined;
    // The merged delivery id finds the job for as long as it is kept.
    if (row) this.stmt.addCoalescedId.run(input.deliveryId, row.seq);
    return row;
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
    if (input.coalesce || input.concurrencyKey !== undefined) this.insertKeyed(seq, id, input, payload, routeDef, now);
    else this.stmt.insert.run(seq, id, input.route, input.event, input.deliveryId, payload, input.receivedAt, now, now, now, routeDef);
    this.lastSeqInTransaction = seq;
    this.insertedInTransaction += 1;
    return id;
  }

  /** A job with keys: a coalescing one waits for its window (from its first event, never extended) and takes more events until leased. */
  private insertKeyed(seq: number, id: string, input: JobInput, payload: string, routeDef: string | null, now: number): void {
    const { coalesce } = input;
    const deliveryIds = JSON.stringify([input.deliveryId]);
    this.stmt.insertKeyed.run({
      seq,
      id,
      route: input.route,
      event: input.event,
      deliveryId: input.deliveryId,
      payload,
      receivedAt: input.receivedAt,
      runAt: coalesce ? input.receivedAt + coalesce.windowMs : now,
      now,
      routeDef,
      requeued: coalesce ? COALESCING : FRESH,
      coalesceKey: coalesce?.key ?? null,
      concurrencyKey: input.concurrencyKey ?? null,
      coalesced: !coalesce ? null : coalesce.mode === 'all' ? `{"deliveryIds":${deliveryIds},"payloads":[${payload}]}` : `{"deliveryIds":${deliveryIds}}`,
    });
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
      const busyKeys = new Set<string>();
      const pick = this.dueNow(now, busyKeys) ?? this.orphanNow(now, busyKeys);
      if (!pick) return undefined;
      return toJob(this.stmt.take.get({ seq: pick.seq, now, owner, instance, until: now + leaseMs }) as JobRow);
      // One attempt while the file is locked elsewhere: the worker asks again at its next poll.
    }, 0);
    if (!job) this.scheduleWake();
    return job;
  }

  /**
   * The waiting job to run next, inside the lease's operation: the earlier by (run_at, seq) of the first job
   * above the watermark that never left the queue and the first put-back (or coalescing) job that is due,
   * passing those whose concurrency key is busy. The watermark moves up to the job taken when it is the first
   * above the mark, or to the top of the table when no such job is left: nothing waiting can be below it
   * afterwards, since a new job gets a seq above every row (the top row is never purged) and a job that goes
   * back to the queue is marked requeued. A passed job keeps the mark below it. Moves made by a transaction
   * that fails are undone (joinTransaction).
   */
  private dueNow(now: number, busyKeys = new Set<string>()): Candidate | undefined {
    this.joinTransaction();
    this.freshMark ??= (this.stmt.readMark.get() as number | undefined) ?? 0;
    let fresh = this.stmt.fresh.get(this.freshMark) as Candidate | undefined;
    const firstFresh = fresh?.seq;
    this.freshMark = fresh ? fresh.seq - 1 : (this.stmt.maxSeq.get() as number);
    let requeued = this.stmt.requeuedDue.get({ now, afterRunAt: Number.MIN_SAFE_INTEGER, afterSeq: 0 }) as Candidate | undefined;
    for (;;) {
      const freshFirst =
        fresh !== undefined &&
        fresh.run_at <= now &&
        (!requeued || fresh.run_at < requeued.run_at || (fresh.run_at === requeued.run_at && fresh.seq < requeued.seq));
      const pick = freshFirst ? fresh : requeued;
      if (!pick) return undefined;
      if (!this.keyBusyNow(pick, now, busyKeys)) {
        if (pick.seq === firstFresh) this.freshMark = pick.seq;
        return pick;
      }
      if (freshFirst) fresh = this.stmt.fresh.get(pick.seq) as Candidate | undefined;
      else requeued = this.stmt.requeuedDue.get({ now, afterRunAt: pick.run_at, afterSeq: pick.seq }) as Candidate | undefined;
    }
  }

  /** A running job whose lease ran out or whose gateway stopped beating, unless its concurrency key is busy meanwhile. */
  private orphanNow(now: number, busyKeys: Set<string>): Candidate | undefined {
    const stale = now - this.heartbeat.staleAfterMs;
    let after: Pick<Candidate, 'run_at' | 'seq'> = { run_at: Number.MIN_SAFE_INTEGER, seq: 0 };
    for (;;) {
      const orphan = this.stmt.orphan.get({ now, stale, afterRunAt: after.run_at, afterSeq: after.seq }) as Candidate | undefined;
      if (!orphan || !this.keyBusyNow(orphan, now, busyKeys)) return orphan;
      after = orphan;
    }
  }

  /**
   * Whether another job of the candidate's route and concurrency key runs under a live lease (core's
   * JobInput.concurrencyKey); keys found busy are remembered for the rest of the lease in `busyKeys`.
   */
  private keyBusyNow(candidate: Candidate, now: number, busyKeys: Set<string>): boolean {
    if (candidate.concurrency_key === null) return false;
    const slot = `${candidate.route}\u0000${candidate.concurrency_key}`;
    if (busyKeys.has(slot)) return true;
    const busy = this.stmt.keyBusy.get({ route: candidate.route, key: candidate.concurrency_key, now, stale: now - this.heartbeat.staleAfterMs }) !== undefined;
    if (busy) busyKeys.add(slot);
    return busy;
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
    const next = this.stmt.nextRunAt.get(this.now()) as number | null;
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

  /**
   * Runs `stmt` (an UPDATE ... RETURNING concurrency_key) on the job; when the job had a concurrency key, the
   * jobs waiting for that key may run now, so idle workers wake.
   */
  private async endRun(jobId: string, stmt: Statement, params: Record<string, unknown>): Promise<void> {
    const row = await this.writes.run(() => stmt.get({ ...params, ...this.keyOf(jobId), now: this.now() }) as { concurrency_key: string | null } | undefined);
    if (!row) throw new Error(`no job ${jobId} in the SQLite store`);
    if (row.concurrency_key !== null) this.events.emit('ready');
  }

  /** The first delivery attempt runs at once under the same lease, so the delivery step starts at attempt 1. */
  saveAnswer(jobId: string, prompt: string, answer: string, usage?: AgentUsage): Promise<void> {
    return this.mustChange(jobId, this.stmt.saveAnswer, { prompt, answer, usage: usage === undefined ? null : JSON.stringify(usage) });
  }

  saveDestinations(jobId: string, destinations: DestinationState[]): Promise<void> {
    return this.mustChange(jobId, this.stmt.saveDestinations, { destinations: JSON.stringify(destinations) });
  }

  /** Stores no outcome for a delivered job: absent means delivered, as for jobs stored before outcomes existed. */
  complete(jobId: string, receipt: unknown, ending?: { outcome: JobOutcome; note?: string }): Promise<void> {
    const outcome = ending?.outcome === undefined || ending.outcome === 'delivered' ? null : ending.outcome;
    return this.endRun(jobId, this.stmt.complete, { receipt: JSON.stringify(receipt ?? null), outcome, note: ending?.note ?? null });
  }

  async fail(jobId: string, error: JobError, retryAt: number | null): Promise<void> {
    const now = this.now();
    await this.endRun(jobId, this.stmt.fail, {
      error: JSON.stringify(error),
      status: retryAt === null ? 'dead' : 'pending',
      runAt: retryAt ?? now,
      finishedAt: retryAt === null ? now : null,
    });
    // A retry due at once wakes the workers now; a later one when it is due.
    if (retryAt !== null && retryAt <= this.now()) this.events.emit('ready');
    else if (retryAt !== null) this.scheduleWake();
  }

  /** With a hold, the job waits until `hold.runAt` with its note (a spent budget); the note goes at its next lease. */
  async release(jobId: string, hold?: { runAt: number; note: string }): Promise<void> {
    const changed = await this.change(this.stmt.release, { ...this.keyOf(jobId), runAt: hold?.runAt ?? null, note: hold?.note ?? null });
    if (changed === 0) return;
    // Without a hold the job is due now; either way a job of its concurrency key may be waiting for it.
    this.events.emit('ready');
    if (hold) this.scheduleWake();
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

  /** A job by its own delivery id, or by one of the delivery ids merged into it (coalesced_ids). */
  async findByDeliveryId(deliveryId: string): Promise<Job | undefined> {
    const row = (this.stmt.byDelivery.get(deliveryId) ?? this.stmt.byCoalescedId.get(deliveryId)) as JobRow | undefined;
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
      if (deleted > 0) {
        this.stmt.purgeLegacyIds.run();
        this.stmt.purgeCoalescedIds.run();
      }
      return deleted;
    });
  }

  async close(): Promise<void> {
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
  }
}
