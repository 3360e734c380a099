import path from 'node:path';
import { jobInput } from '@hookwise/testing';
import Database from 'better-sqlite3';
import type { Logger } from 'winston';
import { WriteBatch } from '../../src';
import { JobIdFormat, seqInJobId } from '../../src/job-ids';
import { SCHEMA_VERSION, migrate } from '../../src/schema';
import { sqliteStoresPerTest } from '../sqlite-temp-dir';

// The SQLite queue's job ids (each carries its seq), schema upgrades of waiting jobs, and the watermark the lease
// finds new jobs by: leased in order, never skipped, shared through the file.

describe('SQLite store: job ids, lease order and the watermark', () => {
  const tmp = sqliteStoresPerTest();
  const { open } = tmp;

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
    const file = path.join(tmp.dir, 'hookwise.sqlite');
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
    const file = path.join(tmp.dir, 'hookwise.sqlite');
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
});
