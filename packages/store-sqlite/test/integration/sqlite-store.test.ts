import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@hookwise/gateway';
import { jobInput } from '@hookwise/testing';
import Database from 'better-sqlite3';
import type { Logger } from 'winston';
import { WriteBatch, createStore, openSqliteStore, type SqliteStore } from '../../src';
import { JobIdFormat, seqInJobId } from '../../src/job-ids';
import { SCHEMA_VERSION, migrate } from '../../src/schema';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

const logger = createLogger({ silent: true });

describe('SQLite store', () => {
  let dir: string;
  const opened: SqliteStore[] = [];
  const open = (options: Partial<Parameters<typeof openSqliteStore>[0]> = {}): SqliteStore => {
    const store = openSqliteStore({ file: path.join(dir, 'hookwise.sqlite'), ...options });
    opened.push(store);
    return store;
  };

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'hookwise-sqlite-'));
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates <configDir>/hookwise.sqlite by default, readable by its owner only, and store.path relative to the config dir', async () => {
    const store = await createStore({ config: { backend: 'sqlite', max_pending: 10 }, configDir: dir, logger });
    await store.close();
    const file = path.join(dir, 'hookwise.sqlite');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const custom = await createStore({ config: { backend: 'sqlite', max_pending: 10, path: 'data/events.db' }, configDir: dir, logger });
    await custom.close();
    expect(statSync(path.join(dir, 'data', 'events.db')).isFile()).toBe(true);
  });

  it('keeps jobs, answers and delivery ids across a restart', async () => {
    const first = open();
    const job = await first.jobs.enqueue(jobInput({ deliveryId: 'gh-1' }));
    expect(await first.deliveryIds.claim('ci', 'gh-2')).toBe(true);
    await first.jobs.lease('w1', 30_000);
    await first.jobs.saveAnswer(job.id, 'prompt', 'answer');
    await first.jobs.release(job.id);
    await first.close();

    const second = open();
    expect(await second.deliveryIds.claim('ci', 'gh-2')).toBe(false);
    // A job claims its own delivery id on its route.
    expect(await second.deliveryIds.claim('ci', 'gh-1')).toBe(false);
    expect(await second.deliveryIds.claim('other', 'gh-1')).toBe(true);
    const again = await second.jobs.lease('w2', 30_000);
    expect(again).toMatchObject({ id: job.id, step: 'deliver', answer: 'answer', prompt: 'prompt' });
  });

  it('takes over a running job at once when its gateway stopped beating, long before the lease ends', async () => {
    const store = open({ staleAfterMs: 5000 });
    const job = await store.jobs.enqueue(jobInput());
    // Another process leased it for a minute and was then killed: its heartbeat is 10 s old.
    const raw = new Database(store.file);
    raw.prepare('INSERT INTO instances (id, seen_at) VALUES (?, ?)').run('dead-gateway', Date.now() - 10_000);
    raw
      .prepare(`UPDATE jobs SET status = 'running', attempts = 1, lease_owner = 'w-dead', lease_instance = 'dead-gateway', lease_until = ? WHERE id = ?`)
      .run(Date.now() + 60_000, job.id);
    raw.close();
    const taken = await store.jobs.lease('w-new', 30_000);
    expect(taken).toMatchObject({ id: job.id, attempts: 2, status: 'running' });
  });

  it('leaves a running job alone while its gateway keeps beating', async () => {
    const store = open();
    const job = await store.jobs.enqueue(jobInput());
    const raw = new Database(store.file);
    raw.prepare('INSERT INTO instances (id, seen_at) VALUES (?, ?)').run('live-gateway', Date.now());
    raw
      .prepare(`UPDATE jobs SET status = 'running', attempts = 1, lease_owner = 'w-live', lease_instance = 'live-gateway', lease_until = ? WHERE id = ?`)
      .run(Date.now() + 60_000, job.id);
    raw.close();
    expect(await store.jobs.lease('w-new', 30_000)).toBeUndefined();
  });

  it('forgets a delivery id after its hour and purges it', async () => {
    let now = 1_000_000;
    const store = open({ now: () => now });
    expect(await store.deliveryIds.claim('ci', 'x')).toBe(true);
    now += 59 * 60 * 1000;
    expect(await store.deliveryIds.claim('ci', 'x')).toBe(false);
    now += 2 * 60 * 1000;
    await store.purge();
    expect(await store.deliveryIds.claim('ci', 'x')).toBe(true);
  });

  it('starts a fresh rate window each minute', async () => {
    let now = 6_000_000;
    const store = open({ now: () => now });
    expect((await store.rateLimiter.hit('ci', 1)).allowed).toBe(true);
    const full = await store.rateLimiter.hit('ci', 1);
    expect(full).toEqual({ allowed: false, retryAfterSeconds: 60 });
    now += 60_000;
    expect((await store.rateLimiter.hit('ci', 1)).allowed).toBe(true);
  });

  it('shares delivery ids and rate windows between two gateways on one file', async () => {
    const a = open();
    const b = open();
    expect(await a.deliveryIds.claim('ci', 'both')).toBe(true);
    expect(await b.deliveryIds.claim('ci', 'both')).toBe(false);
    expect((await a.rateLimiter.hit('ci', 2)).allowed).toBe(true);
    expect((await b.rateLimiter.hit('ci', 2)).allowed).toBe(true);
    expect((await a.rateLimiter.hit('ci', 2)).allowed).toBe(false);
    const job = await a.jobs.enqueue(jobInput());
    expect((await b.jobs.lease('wb', 30_000))?.id).toBe(job.id);
    expect(await a.jobs.lease('wa', 30_000)).toBeUndefined();
  });

  it('deletes done jobs after their retention but keeps dead letters', async () => {
    let now = 10_000_000;
    const store = open({ now: () => now, doneRetentionMs: 1000 });
    const done = await store.jobs.enqueue(jobInput());
    await store.jobs.lease('w', 30_000);
    await store.jobs.complete(done.id, {});
    const dead = await store.jobs.enqueue(jobInput());
    await store.jobs.lease('w', 30_000);
    await store.jobs.fail(dead.id, { at: now, step: 'agent', attempt: 1, message: 'no', retryable: false }, null);
    now += 5000;
    await store.purge();
    expect(await store.jobs.get(done.id)).toBeUndefined();
    expect((await store.jobs.get(dead.id))?.status).toBe('dead');
  });

  it('accepts atomically: a failed insert leaves neither the claim nor the hit, and the rest of the batch is kept', async () => {
    const store = open();
    const raw = new Database(store.file);
    raw.exec(`CREATE TRIGGER refuse_poison BEFORE INSERT ON jobs WHEN NEW.delivery_id = 'poison' BEGIN SELECT RAISE(ABORT, 'disk says no'); END`);
    raw.close();
    const request = (deliveryId: string) => ({ route: 'ci', deliveryId, rateLimit: 2, maxPending: 10, job: jobInput({ deliveryId }) });
    const [ok, poisoned] = await Promise.allSettled([store.accept(request('fine')), store.accept(request('poison'))]);
    expect(ok).toMatchObject({ status: 'fulfilled', value: { outcome: 'accepted' } });
    expect(poisoned).toMatchObject({ status: 'rejected', reason: { message: 'disk says no' } });
    // The poisoned request used no quota and left no id behind: with one hit counted, one more fits.
    expect(await store.deliveryIds.claim('ci', 'poison')).toBe(true);
    await store.deliveryIds.release('ci', 'poison');
    expect((await store.accept(request('third'))).outcome).toBe('accepted');
    expect((await store.accept(request('fourth'))).outcome).toBe('rate_limited');
    expect(await store.jobs.pendingCount()).toBe(2);
  });

  it('shares the rate window and the backpressure limit of accept between two gateways on one file', async () => {
    const a = open();
    const b = open();
    const request = (rateLimit: number, maxPending: number) => {
      const job = jobInput();
      return { route: job.route, deliveryId: job.deliveryId, rateLimit, maxPending, job };
    };
    const both = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).accept(request(3, 100))));
    expect(both.filter((r) => r.outcome === 'accepted')).toHaveLength(3);
    const full = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).accept({ ...request(100, 5), route: 'other' })));
    expect(full.filter((r) => r.outcome === 'accepted')).toHaveLength(2);
    expect(await a.jobs.pendingCount()).toBe(5);
  });

  it('lets the accepted job claim its delivery id: one write per accepted event, an hour long, across restarts', async () => {
    let clock = Date.now();
    const first = open({ now: () => clock });
    const request = (deliveryId: string, wanted = true) => {
      const job = jobInput({ deliveryId });
      return { route: job.route, deliveryId, rateLimit: 100, maxPending: 100, job: wanted ? job : undefined };
    };
    expect(await first.accept(request('a'))).toMatchObject({ outcome: 'accepted' });
    expect(await first.accept(request('b', false))).toEqual({ outcome: 'ignored' });
    const raw = new Database(first.file, { readonly: true });
    // Only the ignored event's id needs a row of its own.
    expect(raw.prepare('SELECT delivery_id FROM delivery_ids').pluck().all()).toEqual(['b']);
    raw.close();
    await first.close();

    const second = open({ now: () => clock });
    expect(await second.accept(request('a'))).toEqual({ outcome: 'duplicate' });
    expect(await second.accept(request('b'))).toEqual({ outcome: 'duplicate' });
    expect(await second.accept({ ...request('a'), route: 'other' })).toMatchObject({ outcome: 'accepted' });
    clock += 60 * 60 * 1000 + 1;
    expect(await second.accept(request('a'))).toMatchObject({ outcome: 'accepted' });
    expect(await second.accept(request('b'))).toMatchObject({ outcome: 'accepted' });
    expect(await second.jobs.pendingCount()).toBe(4);
  });

  it('counts the inserts of a transaction once, and forgets them when it rolls back', async () => {
    const store = open();
    const writes = (store as unknown as { jobs: { writes: WriteBatch } }).jobs.writes;
    const failing = writes.run(() => {
      store.jobs.insertNow(jobInput({ deliveryId: 'will-roll-back' }), {}, Date.now());
      throw new Error('boom');
    });
    const ok = Promise.all([store.jobs.enqueue(jobInput()), store.jobs.enqueue(jobInput())]);
    await expect(failing).rejects.toThrow('boom');
    const added = await ok;
    expect(await store.jobs.pendingCount()).toBe(2);
    expect(await store.jobs.findByDeliveryId('will-roll-back')).toBeUndefined();
    // The seq the rolled-back insert had chosen went to the next job: ids stay dense and unique.
    expect((await store.jobs.list()).map((j) => j.id).sort()).toEqual(added.map((j) => j.id).sort());
    expect(new Set(added.map((j) => j.id)).size).toBe(2);
  });

  it('gives every job an id that carries its seq, and finds jobs by it without an index on ids', async () => {
    const store = open();
    const jobs = await Promise.all(Array.from({ length: 5 }, () => store.jobs.enqueue(jobInput())));
    const accepted = await store.accept({ route: 'ci', deliveryId: 'by-accept', rateLimit: 100, maxPending: 100, job: jobInput({ deliveryId: 'by-accept' }) });
    const ids = [...jobs.map((j) => j.id), accepted.outcome === 'accepted' ? accepted.jobId : ''];
    expect(ids.map((id) => seqInJobId(id))).toEqual([1, 2, 3, 4, 5, 6]);
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect((await store.jobs.get(id))?.id).toBe(id);
    }
    // A well-formed id whose seq exists but whose time differs (a reused seq) names no job.
    const forged = `${ids[1].startsWith('f') ? '0' : 'f'}${ids[1].slice(1)}`;
    expect(seqInJobId(forged)).toBe(2);
    expect(await store.jobs.get(forged)).toBeUndefined();
    await expect(store.jobs.complete(forged, {})).rejects.toThrow(/no job/);
    const raw = new Database(store.file, { readonly: true });
    expect(raw.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs' ORDER BY name`).pluck().all()).toEqual([
      'jobs_coalescing',
      'jobs_concurrency',
      'jobs_dead',
      'jobs_delivery_id',
      'jobs_finished',
      'jobs_requeued',
      'jobs_running',
    ]);
    raw.close();
  });

  it.each([1, 2, 3])('upgrades a file of schema %i: jobs, order and counters kept, the insert write path slimmed', async (version) => {
    const file = path.join(dir, 'hookwise.sqlite');
    const old = new Database(file);
    migrate(old, file, version);
    const insert = old.prepare(`
      INSERT INTO jobs (id, route, event, delivery_id, payload, received_at, status, step, attempts, errors, run_at, created_at, updated_at, finished_at)
      VALUES (?, 'ci', 'push', ?, '{"n":1}', 1, ?, 'agent', 0, '[]', 1, ?, 1, ?)`);
    insert.run('j1', 'd1', 'done', 1, 5);
    insert.run('j2', 'd2', 'pending', 2, null);
    insert.run('j3', 'd3', 'running', 3, null);
    insert.run('j4', 'd4', 'pending', 4, null);
    old.prepare(`INSERT INTO delivery_ids (route, delivery_id, expires_at) VALUES ('ci', 'ignored-1', ?)`).run(Date.now() + 60_000);
    // From schema 3 on the store, not a trigger, counts inserts: do what it would have done.
    if (version >= 3) old.exec('UPDATE job_counts SET n = (SELECT COUNT(*) FROM jobs WHERE jobs.status = job_counts.status)');
    old.close();

    const info = jest.fn();
    const store = open({ logger: { info, warn: jest.fn(), debug: jest.fn() } as unknown as Logger });
    expect(info).toHaveBeenCalledWith(`SQLite store: upgrading ${file} from schema ${version} to ${SCHEMA_VERSION}`);
    expect(await store.jobs.pendingCount()).toBe(3);
    expect((await store.jobs.list()).map((j) => j.id)).toEqual(['j4', 'j3', 'j2', 'j1']);
    expect(await store.deliveryIds.claim('ci', 'ignored-1')).toBe(false);
    const added = await store.jobs.enqueue(jobInput());
    expect(await store.jobs.pendingCount()).toBe(4);
    expect((await store.jobs.list({ limit: 1 }))[0].id).toBe(added.id);
    expect(seqInJobId(added.id)).toBe(5);
    // Jobs written before schema 4 keep their ids, and every call still finds them.
    expect((await store.jobs.get('j3'))?.status).toBe('running');
    const leased = await store.jobs.lease('w1', 30_000);
    expect(leased?.id).toBe('j2');
    expect(await store.jobs.renew('j2', 'w1', 30_000)).toBe(true);
    await store.jobs.complete('j2', { ok: true });
    expect((await store.jobs.get('j2'))?.status).toBe('done');
    await store.jobs.fail('j4', { step: 'agent', attempt: 1, message: 'x', retryable: false, at: 1 }, null);
    expect(await store.jobs.retryDead('j4')).toBe(true);
    // Purging old done jobs (j1) drops their old ids too.
    await store.purge();
    expect(await store.jobs.get('j1')).toBeUndefined();
    const check = new Database(file, { readonly: true });
    expect(check.prepare('SELECT id FROM legacy_job_ids ORDER BY seq').pluck().all()).toEqual(['j2', 'j3', 'j4']);
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const schema = (check.prepare(`SELECT name, sql FROM sqlite_master WHERE tbl_name = 'jobs'`).all() as Array<{ name: string; sql: string | null }>)
      .map((r) => r.name)
      .sort();
    expect(schema).toEqual([
      'jobs',
      'jobs_coalescing',
      'jobs_concurrency',
      'jobs_count_delete',
      'jobs_count_update',
      'jobs_dead',
      'jobs_delivery_id',
      'jobs_finished',
      'jobs_requeued',
      'jobs_running',
    ]);
    expect(check.prepare(`SELECT sql FROM sqlite_master WHERE name = 'jobs'`).pluck().get()).not.toMatch(/AUTOINCREMENT/);
    expect(check.prepare('SELECT status, n FROM job_counts ORDER BY status').all()).toEqual([
      { status: 'dead', n: 0 },
      { status: 'done', n: 1 },
      { status: 'pending', n: 2 },
      { status: 'running', n: 1 },
    ]);
    check.close();
  });

  it('upgrades a file of schema 4: every waiting job, delayed retries included, is leased in (run_at, seq) order', async () => {
    const file = path.join(dir, 'hookwise.sqlite');
    const old = new Database(file);
    migrate(old, file, 4);
    const ids = new JobIdFormat();
    const insert = old.prepare(`
      INSERT INTO jobs (seq, id, route, event, delivery_id, payload, received_at, status, step, attempts, errors, run_at, created_at, updated_at)
      VALUES (?, ?, 'ci', 'push', ?, '{"n":1}', 1, ?, 'agent', ?, '[]', ?, 1, 1)`);
    const now = Date.now();
    const id = (seq: number) => ids.format(seq, 1);
    insert.run(1, id(1), 'd1', 'pending', 1, now + 60_000); // a retry waiting for its backoff
    insert.run(2, id(2), 'd2', 'pending', 0, 20);
    insert.run(3, id(3), 'd3', 'done', 1, 5);
    insert.run(4, id(4), 'd4', 'pending', 0, 10);
    old.exec('UPDATE job_counts SET n = (SELECT COUNT(*) FROM jobs WHERE jobs.status = job_counts.status)');
    old.close();

    let clock = now;
    const store = open({ now: () => clock });
    const added = await store.jobs.enqueue(jobInput());
    expect(seqInJobId(added.id)).toBe(5);
    const leased: string[] = [];
    for (let job = await store.jobs.lease('w', 30_000); job; job = await store.jobs.lease('w', 30_000)) leased.push(job.id);
    expect(leased).toEqual([id(4), id(2), added.id]);
    clock += 60_000;
    expect((await store.jobs.lease('w', 30_000))?.id).toBe(id(1));
    const raw = new Database(file, { readonly: true });
    expect(raw.prepare('SELECT status, requeued FROM jobs ORDER BY seq').all()).toEqual([
      { status: 'running', requeued: 1 },
      { status: 'running', requeued: 1 },
      { status: 'done', requeued: 0 },
      { status: 'running', requeued: 1 },
      { status: 'running', requeued: 0 },
    ]);
    raw.close();
  });

  it('leases new jobs in order and put-back jobs by their time, without an index entry per new job', async () => {
    let clock = 1_000_000;
    const store = open({ now: () => clock });
    const enqueue = async (deliveryId: string) => {
      const job = await store.jobs.enqueue(jobInput({ deliveryId }));
      clock += 1;
      return job.id;
    };
    const a = await enqueue('a');
    const b = await enqueue('b');
    const c = await enqueue('c');
    expect((await store.jobs.lease('w', 30_000))?.id).toBe(a);
    // Handed back: a keeps its place (run_at) ahead of b and c.
    await store.jobs.release(a);
    expect((await store.jobs.lease('w', 30_000))?.id).toBe(a);
    // A retry in 100 ms: b and c first, then nothing until a is due.
    await store.jobs.fail(a, { step: 'agent', attempt: 1, message: 'x', retryable: true, at: clock }, clock + 100);
    expect((await store.jobs.lease('w', 30_000))?.id).toBe(b);
    const d = await enqueue('d');
    expect((await store.jobs.lease('w', 30_000))?.id).toBe(c);
    expect((await store.jobs.lease('w', 30_000))?.id).toBe(d);
    expect(await store.jobs.lease('w', 30_000)).toBeUndefined();
    clock += 100;
    expect((await store.jobs.lease('w', 30_000))?.id).toBe(a);
    // A dead letter retried by hand is waiting again.
    await store.jobs.fail(a, { step: 'agent', attempt: 2, message: 'x', retryable: false, at: clock }, null);
    expect(await store.jobs.lease('w', 30_000)).toBeUndefined();
    expect(await store.jobs.retryDead(a)).toBe(true);
    expect((await store.jobs.lease('w', 30_000))?.id).toBe(a);
    const raw = new Database(store.file, { readonly: true });
    // New jobs are in none of the queue's indexes until they leave the queue.
    const e = await enqueue('e');
    expect(raw.prepare(`SELECT count(*) FROM jobs INDEXED BY jobs_requeued WHERE status = 'pending' AND requeued > 0`).pluck().get()).toBe(0);
    expect(raw.prepare(`SELECT count(*) FROM jobs INDEXED BY jobs_running WHERE status = 'running'`).pluck().get()).toBe(4);
    raw.close();
    expect((await store.jobs.lease('w', 30_000))?.id).toBe(e);
  });

  it('discards the work a transaction left for its end when the commit itself fails', async () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    // A deferred foreign key is checked at COMMIT: the one way to make a commit fail on purpose.
    db.exec('CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE child (p INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)');
    const writes = new WriteBatch(db);
    const calls: string[] = [];
    const failing = writes.run(() => {
      writes.hook({ finish: () => calls.push('finish'), discard: () => calls.push('discard') });
      db.prepare('INSERT INTO child (p) VALUES (42)').run();
    });
    // Matched by its fields, not with toThrow: better-sqlite3's native addon is loaded once per process and keeps
    // the SqliteError class of the first test file that loaded it, so when another file ran earlier in the same jest
    // worker, this error comes from that file's realm, is no `instanceof Error` here, and toThrow took the rejection
    // for "did not throw" (the full-suite failures of this case, reproduced by running contract.test.ts first in one worker).
    await expect(failing).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY', message: expect.stringMatching(/FOREIGN KEY/) });
    expect(calls).toEqual(['finish', 'discard']);
    expect(db.prepare('SELECT count(*) FROM child').pluck().get()).toBe(0);
    db.close();
  });

  it('undoes a watermark move when its transaction fails, so no waiting job is skipped', async () => {
    const store = open();
    const writes = (store as unknown as { jobs: { writes: WriteBatch } }).jobs.writes;
    const job = await store.jobs.enqueue(jobInput());
    // The first half of a lease (picking the job moves the watermark past it), then the transaction fails.
    const failing = writes.run(() => {
      (store.jobs as unknown as { dueNow(now: number): unknown }).dueNow(Date.now());
      throw new Error('boom');
    });
    await expect(failing).rejects.toThrow('boom');
    expect((await store.jobs.lease('w', 30_000))?.id).toBe(job.id);
  });

  it('never purges the newest job, so a seq is never given out twice and new jobs stay above every watermark', async () => {
    let clock = Date.now();
    const store = open({ now: () => clock, doneRetentionMs: 1000 });
    const first = await store.jobs.enqueue(jobInput());
    const second = await store.jobs.enqueue(jobInput());
    for (const job of [first, second]) {
      expect((await store.jobs.lease('w', 30_000))?.id).toBe(job.id);
      await store.jobs.complete(job.id, {});
    }
    clock += 2000;
    await store.purge();
    expect((await store.jobs.list()).map((j) => j.id)).toEqual([second.id]);
    const third = await store.jobs.enqueue(jobInput());
    expect(seqInJobId(third.id)).toBe(3);
    expect((await store.jobs.lease('w', 30_000))?.id).toBe(third.id);
  });

  it('shares the watermark through the file: another store on it leases the jobs this one wrote, and starts from the saved mark', async () => {
    const a = open();
    const b = open();
    const fromA = await a.jobs.enqueue(jobInput());
    const fromB = await b.jobs.enqueue(jobInput());
    expect((await a.jobs.lease('w', 30_000))?.id).toBe(fromA.id);
    expect((await a.jobs.lease('w', 30_000))?.id).toBe(fromB.id);
    const later = await b.jobs.enqueue(jobInput());
    expect((await b.jobs.lease('w', 30_000))?.id).toBe(later.id);
    expect(await a.jobs.lease('w', 30_000)).toBeUndefined();
    const raw = new Database(a.file, { readonly: true });
    expect(raw.prepare(`SELECT seq FROM queue_marks WHERE name = 'fresh'`).pluck().get()).toBeGreaterThanOrEqual(seqInJobId(fromA.id) ?? Infinity);
    raw.close();
    await a.close();
    const c = open();
    const next = await c.jobs.enqueue(jobInput());
    expect((await c.jobs.lease('w', 30_000))?.id).toBe(next.id);
  });

  it('copies the log into the file on its own thread once the gateway accepts, and stops it on close', async () => {
    const fileSize = (store: SqliteStore) => statSync(store.file).size;
    const fill = async (store: SqliteStore) => {
      for (let batch = 0; batch < 10; batch += 1) {
        await Promise.all(
          Array.from({ length: 50 }, () => {
            const job = jobInput({ payload: { text: 'x'.repeat(2000) } });
            return store.accept({ route: job.route, deliveryId: job.deliveryId, rateLimit: 10_000, maxPending: 10_000, job });
          }),
        );
      }
    };
    const waitFor = async (check: () => boolean) => {
      for (let i = 0; i < 100 && !check(); i += 1) await new Promise((r) => setTimeout(r, 20));
      return check();
    };
    // Without the thread, 500 jobs (about 300 pages) stay in the log: SQLite checkpoints at 1,000 pages.
    const inline = open({ backgroundCheckpoints: false, file: path.join(dir, 'inline.sqlite') });
    const inlineBefore = fileSize(inline);
    await fill(inline);
    expect(fileSize(inline)).toBe(inlineBefore);

    const store = open();
    const before = fileSize(store);
    await fill(store);
    expect(await waitFor(() => fileSize(store) > before + 500 * 2000)).toBe(true);
    await store.close();
    // The last connection closed: everything is in the file and the log is gone.
    expect(existsSync(`${store.file}-wal`)).toBe(false);
    const reopened = open();
    expect(await reopened.jobs.pendingCount()).toBe(500);
  });

  it('finishes close() in a process with nothing else to do (the checkpoint thread does not let it end early)', async () => {
    const file = path.join(dir, 'child.sqlite');
    const script = `
      const { openSqliteStore } = require(${JSON.stringify(path.join(TEST_DIR, '..', 'src'))});
      (async () => {
        const store = openSqliteStore({ file: ${JSON.stringify(file)} });
        const job = { route: 'ci', event: 'push', deliveryId: 'd-1', payload: { n: 1 }, receivedAt: Date.now() };
        console.log((await store.accept({ route: 'ci', deliveryId: 'd-1', rateLimit: 10, maxPending: 10, job })).outcome);
        await store.close();
        console.log('closed');
      })();`;
    const repo = path.join(TEST_DIR, '..', '..', '..');
    const child = spawn(process.execPath, ['-r', 'ts-node/register', '-e', script], {
      cwd: repo,
      env: { ...process.env, TS_NODE_PROJECT: path.join(repo, 'tsconfig.test.json'), TS_NODE_TRANSPILE_ONLY: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect({ code, output: output.trim() }).toEqual({ code: 0, output: 'accepted\nclosed' });
    expect(existsSync(`${file}-wal`)).toBe(false);
  }, 30_000);

  it('refuses a file written by a newer schema, saying what to do', () => {
    const file = path.join(dir, 'future.sqlite');
    const raw = new Database(file);
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => openSqliteStore({ file })).toThrow(/schema version 99.*upgrade Hookwise or point store\.path/);
  });

  it('uses WAL with synchronous NORMAL by default and FULL when store.synchronous is full', async () => {
    const pragmas = (file: string) => {
      const db = new Database(file, { readonly: true });
      try {
        return { journal: db.pragma('journal_mode', { simple: true }) };
      } finally {
        db.close();
      }
    };
    const normal = open();
    expect(pragmas(normal.file)).toEqual({ journal: 'wal' });
    await normal.close();
    const logger = createLogger({ silent: true });
    const full = (await createStore({
      config: { backend: 'sqlite', max_pending: 10, path: 'full.sqlite', synchronous: 'full' },
      configDir: dir,
      logger,
    })) as SqliteStore;
    const normalToo = (await createStore({ config: { backend: 'sqlite', max_pending: 10, path: 'normal.sqlite' }, configDir: dir, logger })) as SqliteStore;
    // `synchronous` is a per-connection setting: read it through the store's own connection.
    expect(full.synchronousMode()).toBe('full');
    expect(normalToo.synchronousMode()).toBe('normal');
    await full.close();
    await normalToo.close();
  });

  it('says where and why when the file cannot be opened', () => {
    expect(() => openSqliteStore({ file: path.join(dir, 'not-a-db.sqlite', '..', '..', path.basename(dir)) })).toThrow(
      /cannot open the SQLite store at .*store\.path/,
    );
  });
});

describe('WriteBatch', () => {
  it('commits the writes of one turn in one transaction and rolls back only the one that failed', async () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (v INTEGER)');
    const batch = new WriteBatch(db);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const results = await Promise.allSettled([
      batch.run(() => insert.run(1) && db.inTransaction),
      batch.run(() => {
        insert.run(2);
        throw new Error('bad write');
      }),
      batch.run(() => insert.run(3) && db.inTransaction),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseFulfilledResult<boolean>).value).toBe(true);
    expect(db.prepare('SELECT v FROM t ORDER BY v').pluck().all()).toEqual([1, 3]);
    db.close();
  });
});
