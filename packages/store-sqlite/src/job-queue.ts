// The job queue in SQLite: jobs survive restarts, leases expire, and a dead gateway's jobs are taken over. Its
// parts: the rows (job-row), the statements (job-statements), and which job a lease takes (lease-picker).
import { EventEmitter } from 'node:events';
import type { AgentUsage, DestinationState, EnqueueHints, Job, JobError, JobFilter, JobInput, JobOutcome, JobQueue, JobSummary } from '@hookwise/core';
import type { Database, Statement } from 'better-sqlite3';
import type { InstanceHeartbeat } from './heartbeat';
import { JobIdFormat, seqInJobId } from './job-ids';
import { COALESCING, FRESH, SUMMARY_COLUMNS, toJob, toSummary, type Candidate, type JobRow, type SummaryRow } from './job-row';
import { prepareJobStatements, type JobStatements } from './job-statements';
import { LeasePicker } from './lease-picker';
import { prepareMakeDue } from './job-make-due';
import type { WriteBatch } from './write-batch';

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
  private readonly ids = new JobIdFormat();
  private readonly stmt: JobStatements;
  private readonly picker: LeasePicker;
  private readonly makeDueStmt: Statement;

  constructor(
    private readonly db: Database,
    private readonly writes: WriteBatch,
    private readonly heartbeat: InstanceHeartbeat,
    private readonly options: SqliteJobQueueOptions,
  ) {
    this.events.setMaxListeners(0);
    this.stmt = prepareJobStatements(db);
    this.picker = new LeasePicker(this.stmt, heartbeat, options);
    this.makeDueStmt = prepareMakeDue(db);
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
    this.picker.transactionStarted();
    const reset = (): void => {
      this.countedInTransaction = undefined;
      this.insertedInTransaction = 0;
      this.lastSeqInTransaction = undefined;
      this.inTransaction = false;
    };
    this.writes.hook({
      finish: () => {
        if (this.insertedInTransaction > 0) this.stmt.countInserted.run(this.insertedInTransaction);
        this.picker.transactionCommitted();
        reset();
      },
      discard: () => {
        this.picker.transactionDiscarded();
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
      const pick = this.dueNow(now, busyKeys) ?? this.picker.orphanNow(now, busyKeys);
      if (!pick) return undefined;
      return toJob(this.stmt.take.get({ seq: pick.seq, now, owner, instance, until: now + leaseMs }) as JobRow);
      // One attempt while the file is locked elsewhere: the worker asks again at its next poll.
    }, 0);
    if (!job) this.scheduleWake();
    return job;
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

  /** The waiting job to run next (LeasePicker.dueNow), inside the lease's operation and so its transaction. */
  private dueNow(now: number, busyKeys = new Set<string>()): Candidate | undefined {
    this.joinTransaction();
    return this.picker.dueNow(now, busyKeys);
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

  /** Wakes this process's idle workers; gateways sharing the file find the job at their next poll. */
  async makeDue(jobId: string): Promise<boolean> {
    const changed = (await this.change(this.makeDueStmt, this.keyOf(jobId))) > 0;
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
    return (this.select('*', filter) as JobRow[]).map(toJob);
  }

  /** As list, without reading the payload, prompt and answer columns: a list page over large payloads reads none. */
  async listSummaries(filter: JobFilter = {}): Promise<JobSummary[]> {
    return (this.select(SUMMARY_COLUMNS, filter) as SummaryRow[]).map(toSummary);
  }

  private select(columns: string, filter: JobFilter): unknown[] {
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
    const sql = `SELECT ${columns} FROM jobs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC${filter.limit ? ' LIMIT @limit' : ''}`;
    if (filter.limit) params.limit = filter.limit;
    return this.db.prepare(sql).all(params);
  }

  onReady(listener: () => void): () => void {
    this.events.on('ready', listener);
    return () => this.events.off('ready', listener);
  }

  /** Deletes done jobs past their retention; dead letters stay until someone retries or inspects them. */
  purgeDone(): Promise<number> {
    return this.purgeFinished(this.now() - this.options.doneRetentionMs + 1);
  }

  /** Done jobs that finished before `finishedBefore` deleted (or counted); the newest row stays (see its statement). */
  purgeFinished(finishedBefore: number, options: { dryRun?: boolean } = {}): Promise<number> {
    if (options.dryRun) return Promise.resolve(this.stmt.countPurgeable.get(finishedBefore - 1) as number);
    return this.writes.run(() => {
      const deleted = this.stmt.purgeDone.run(finishedBefore - 1).changes;
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
