// Issue 23 in the SQLite file itself: schema 8 from a schema-7 file, coalescing inside accept's one transaction and
// across a restart, concurrency keys and budget counters shared by two gateways (stores) on one file.
import type { AcceptRequest, JobInput } from '@hookwise/core';
import { jobInput } from '@hookwise/testing';
import Database from 'better-sqlite3';
import { JobIdFormat } from '../../src/job-ids';
import { SCHEMA_VERSION, migrate } from '../../src/schema';
import { sqliteStoresPerTest } from '../sqlite-temp-dir';

const coalescing = (key: string, mode: 'latest' | 'all', overrides: Partial<JobInput> = {}, windowMs = 60_000): JobInput =>
  jobInput({ coalesce: { key, windowMs, mode }, ...overrides });

const acceptRequest = (job: JobInput, rateLimit = 100): AcceptRequest => ({ route: job.route, deliveryId: job.deliveryId, rateLimit, maxPending: 100, job });

describe('SQLite store, issue 23', () => {
  const tmp = sqliteStoresPerTest('hookwise-sqlite-23-');
  const { open } = tmp;

  it('upgrades a file of schema 7: its jobs are kept and leased in order, and new jobs coalesce in it', async () => {
    expect(SCHEMA_VERSION).toBe(10);
    const old = new Database(tmp.file);
    // The DDL of schema 7 is the first seven migrations, unchanged since that version shipped.
    migrate(old, tmp.file, 7);
    const insert = old.prepare(`
      INSERT INTO jobs (seq, id, route, event, delivery_id, payload, received_at, status, step, attempts, errors, run_at, created_at, updated_at, requeued, answer)
      VALUES (?, ?, 'ci', 'push', ?, '{"n":1}', 1, ?, ?, ?, '[]', ?, 1, 1, ?, ?)`);
    const now = Date.now();
    const ids = new JobIdFormat();
    const [done, retry, fresh] = [1, 2, 3].map((seq) => ids.format(seq, now));
    insert.run(1, done, 'd1', 'done', 'deliver', 1, 1, 0, 'answered');
    // A retry put back before the upgrade (requeued = 1) and due before the fresh job: leased first.
    insert.run(2, retry, 'd2', 'pending', 'deliver', 1, now - 10_000, 1, 'saved answer');
    insert.run(3, fresh, 'd3', 'pending', 'agent', 0, now, 0, null);
    // A retry not due yet: not leased before its time.
    insert.run(4, ids.format(4, now), 'd4', 'pending', 'agent', 1, now + 60_000, 1, null);
    old.exec(`UPDATE job_counts SET n = (SELECT COUNT(*) FROM jobs WHERE jobs.status = job_counts.status)`);
    old.close();

    const store = open();
    const check = new Database(tmp.file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const columns = check.prepare(`SELECT name FROM pragma_table_info('jobs')`).pluck().all();
    expect(columns).toEqual(expect.arrayContaining(['usage', 'outcome', 'note', 'coalesce_key', 'concurrency_key', 'coalesced']));
    expect(check.prepare(`SELECT sql FROM sqlite_master WHERE name = 'jobs_requeued'`).pluck().get()).toMatch(/requeued > 0/);
    check.close();

    expect(await store.jobs.pendingCount()).toBe(3);
    const doneJob = await store.jobs.get(done);
    expect(doneJob).toMatchObject({ status: 'done', answer: 'answered' });
    // Jobs stored before schema 8 have none of the new fields: a done job without an outcome was delivered.
    for (const key of ['usage', 'outcome', 'note', 'coalesceKey', 'concurrencyKey', 'coalesced']) expect(doneJob).not.toHaveProperty(key);
    expect((await store.jobs.lease('w', 30_000))?.id).toBe(retry);
    expect((await store.jobs.lease('w', 30_000))?.id).toBe(fresh);
    expect(await store.jobs.lease('w', 30_000)).toBeUndefined();

    const first = await store.jobs.enqueue(coalescing('pr-1', 'latest'));
    const second = await store.jobs.enqueue(coalescing('pr-1', 'latest'));
    expect(second.id).toBe(first.id);
    expect((await store.jobs.findByDeliveryId(second.deliveryId))?.id).toBe(first.id);
  });

  it('merges inside accept’s one transaction: a merge whose claim fails leaves the job, the ids and the rate window as they were', async () => {
    const store = open();
    const raw = new Database(tmp.file);
    // The merged event's claim is the merge's last write: refusing it must undo the merge too.
    raw.exec(`CREATE TRIGGER refuse_poison BEFORE INSERT ON delivery_ids WHEN NEW.delivery_id = 'poison' BEGIN SELECT RAISE(ABORT, 'disk says no'); END`);
    raw.close();
    const created = await store.accept(acceptRequest(coalescing('pr-7', 'all', { deliveryId: 'first', payload: { n: 1 } }), 3));
    expect(created).toMatchObject({ outcome: 'accepted' });
    const jobId = created.outcome === 'accepted' ? created.jobId : '';
    // One turn, one batch: the poisoned merge fails alone, the other merge of the batch is kept.
    const [ok, poisoned] = await Promise.allSettled([
      store.accept(acceptRequest(coalescing('pr-7', 'all', { deliveryId: 'second', payload: { n: 2 } }), 3)),
      store.accept(acceptRequest(coalescing('pr-7', 'all', { deliveryId: 'poison', payload: { n: 3 } }), 3)),
    ]);
    expect(ok).toEqual({ status: 'fulfilled', value: { outcome: 'accepted', jobId, coalesced: true } });
    expect(poisoned).toMatchObject({ status: 'rejected', reason: { message: 'disk says no' } });
    const job = await store.jobs.get(jobId);
    expect(job?.payload).toEqual({ n: 2 });
    expect(job?.coalesced).toEqual({ deliveryIds: ['first', 'second'], payloads: [{ n: 1 }, { n: 2 }] });
    expect(await store.jobs.findByDeliveryId('poison')).toBeUndefined();
    const check = new Database(tmp.file, { readonly: true });
    expect(check.prepare('SELECT delivery_id FROM coalesced_ids ORDER BY delivery_id').pluck().all()).toEqual(['second']);
    check.close();
    // The failed merge used none of the window (3): one more event fits, the next is rate limited.
    expect(await store.accept(acceptRequest(coalescing('pr-7', 'all', { deliveryId: 'third', payload: { n: 4 } }), 3))).toEqual({
      outcome: 'accepted',
      jobId,
      coalesced: true,
    });
    expect(await store.accept(acceptRequest(coalescing('pr-7', 'all', { deliveryId: 'fourth' }), 3))).toMatchObject({ outcome: 'rate_limited' });
    expect(await store.jobs.pendingCount()).toBe(1);
  });

  it('keeps a coalescing job and its merged events across a restart inside the window: later events still join it, every id finds it', async () => {
    const first = open();
    const a = coalescing('pr-3', 'all', { deliveryId: 'gh-a', payload: { n: 1 } });
    const created = await first.accept(acceptRequest(a));
    const jobId = created.outcome === 'accepted' ? created.jobId : '';
    expect(await first.accept(acceptRequest(coalescing('pr-3', 'all', { deliveryId: 'gh-b', payload: { n: 2 } })))).toMatchObject({ coalesced: true });
    await first.close();

    const second = open();
    // A redelivery of a merged event after the restart is still a duplicate.
    expect(await second.accept(acceptRequest(coalescing('pr-3', 'all', { deliveryId: 'gh-b', payload: { n: 2 } })))).toEqual({ outcome: 'duplicate' });
    expect(await second.accept(acceptRequest(coalescing('pr-3', 'all', { deliveryId: 'gh-c', payload: { n: 3 } })))).toEqual({
      outcome: 'accepted',
      jobId,
      coalesced: true,
    });
    for (const id of ['gh-a', 'gh-b', 'gh-c']) expect((await second.jobs.findByDeliveryId(id))?.id).toBe(jobId);
    // Still waiting for its window (60 s from the first event): nothing to lease yet.
    expect(await second.jobs.lease('w', 30_000)).toBeUndefined();
    const job = await second.jobs.get(jobId);
    expect(job).toMatchObject({ status: 'pending', payload: { n: 3 }, runAt: a.receivedAt + 60_000, coalesceKey: 'pr-3' });
    expect(job?.coalesced).toEqual({ deliveryIds: ['gh-a', 'gh-b', 'gh-c'], payloads: [{ n: 1 }, { n: 2 }, { n: 3 }] });
  });

  it('finds merged delivery ids while their job is kept, and forgets them with it', async () => {
    let clock = Date.now();
    const store = open({ now: () => clock, doneRetentionMs: 1000 });
    const first = await store.jobs.enqueue(coalescing('pr-4', 'latest', { receivedAt: clock - 120_000 }));
    const merged = await store.jobs.enqueue(coalescing('pr-4', 'latest'));
    expect(merged.id).toBe(first.id);
    // A newer job, so that the coalesced one is not the newest row (which is never purged).
    await store.jobs.enqueue(jobInput());
    expect((await store.jobs.lease('w', 30_000))?.id).toBe(first.id);
    await store.jobs.complete(first.id, {}, { outcome: 'silent', note: 'the agent answered [SILENT]' });
    expect(await store.jobs.get(first.id)).toMatchObject({ outcome: 'silent', note: 'the agent answered [SILENT]' });
    // The dedupe hour is long over, the job is still kept: its merged id finds it.
    clock += 2 * 60 * 60 * 1000 - 2000;
    expect((await store.jobs.findByDeliveryId(merged.deliveryId))?.id).toBe(first.id);
    clock += 2000;
    await store.purge();
    expect(await store.jobs.get(first.id)).toBeUndefined();
    expect(await store.jobs.findByDeliveryId(merged.deliveryId)).toBeUndefined();
    const check = new Database(tmp.file, { readonly: true });
    expect(check.prepare('SELECT count(*) FROM coalesced_ids').pluck().get()).toBe(0);
    check.close();
  });

  it('wakes idle workers at once for a coalescing job whose window has already ended, and not before for one whose window is open', async () => {
    const store = open();
    const ready = jest.fn();
    store.jobs.onReady(ready);
    await store.jobs.enqueue(coalescing('pr-5', 'latest'));
    expect(ready).not.toHaveBeenCalled();
    await store.jobs.enqueue(coalescing('pr-6', 'latest', { receivedAt: Date.now() - 120_000 }));
    expect(ready).toHaveBeenCalledTimes(1);
  });

  it('keeps two gateways on one file from running two jobs of one concurrency key at once', async () => {
    const a = open();
    const b = open();
    const first = await a.jobs.enqueue(jobInput({ concurrencyKey: 'pr-1' }));
    const second = await a.jobs.enqueue(jobInput({ concurrencyKey: 'pr-1' }));
    const other = await a.jobs.enqueue(jobInput({ concurrencyKey: 'pr-2' }));
    expect((await a.jobs.lease('wa', 30_000))?.id).toBe(first.id);
    // Gateway b passes the job whose key gateway a is running and takes the next one.
    expect((await b.jobs.lease('wb', 30_000))?.id).toBe(other.id);
    expect(await b.jobs.lease('wb', 30_000)).toBeUndefined();
    await a.jobs.complete(first.id, {});
    expect((await b.jobs.lease('wb', 30_000))?.id).toBe(second.id);
  });

  it('shares budget counters between two gateways on one file, and purges ended windows now and then, not per call', async () => {
    let clock = Date.UTC(2026, 0, 1, 10, 30);
    const a = open({ now: () => clock });
    const b = open({ now: () => clock });
    const hour = 60 * 60 * 1000;
    expect(await a.counters.add('runs:ci', 1, hour)).toBe(1);
    expect(await b.counters.add('runs:ci', 2, hour)).toBe(3);
    expect(await a.counters.add('runs:ci', 0, hour)).toBe(3);
    clock += hour;
    expect(await b.counters.add('runs:ci', 1, hour)).toBe(1);
    const rows = (): number => {
      const check = new Database(tmp.file, { readonly: true });
      const n = check.prepare('SELECT count(*) FROM counters').pluck().get() as number;
      check.close();
      return n;
    };
    expect(rows()).toBe(2);
    await a.purge();
    expect(rows()).toBe(1);
  });
});
