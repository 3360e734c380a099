import { statSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '@hookwise/gateway';
import { jobInput } from '@hookwise/testing';
import Database from 'better-sqlite3';
import { WriteBatch, createStore } from '../../src';
import { sqliteStoresPerTest } from '../sqlite-temp-dir';

// The SQLite store across restarts and processes: delivery ids, rate windows, retention, the atomic accept, and
// takeover of a dead gateway's jobs. Job ids and the lease order: sqlite-queue-order.test.ts; the file itself:
// sqlite-file.test.ts.

const logger = createLogger({ silent: true });

describe('SQLite store', () => {
  const tmp = sqliteStoresPerTest();
  const { open } = tmp;

  it('creates <configDir>/hookwise.sqlite by default, readable by its owner only, and store.path relative to the config dir', async () => {
    const store = await createStore({ config: { backend: 'sqlite', max_pending: 10 }, configDir: tmp.dir, logger });
    await store.close();
    const file = path.join(tmp.dir, 'hookwise.sqlite');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const custom = await createStore({ config: { backend: 'sqlite', max_pending: 10, path: 'data/events.db' }, configDir: tmp.dir, logger });
    await custom.close();
    expect(statSync(path.join(tmp.dir, 'data', 'events.db')).isFile()).toBe(true);
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
