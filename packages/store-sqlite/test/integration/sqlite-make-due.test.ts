import { jobInput } from '@hookwise/testing';
import { sqliteStoresPerTest } from '../sqlite-temp-dir';

// JobQueue.makeDue on a real SQLite file (issue 31: an approval decided while its job waits on a hold), beyond the
// store contract: across two gateways on one file, across a restart, and on jobs put back or coalescing.

const HOUR_MS = 3_600_000;

describe('SQLite makeDue', () => {
  const { open } = sqliteStoresPerTest('hookwise-sqlite-make-due-');

  it('a job held by one gateway and made due by another is leased by the first at once', async () => {
    const a = open();
    const b = open();
    const job = await a.jobs.enqueue(jobInput());
    await a.jobs.lease('gateway-a', 30_000);
    await a.jobs.release(job.id, { runAt: Date.now() + HOUR_MS, note: 'waiting for approval' });
    expect(await a.jobs.lease('gateway-a', 30_000)).toBeUndefined();
    // The press reached gateway b: it makes the job due in the shared file.
    expect(await b.jobs.makeDue(job.id)).toBe(true);
    const leased = await a.jobs.lease('gateway-a', 30_000);
    expect(leased?.id).toBe(job.id);
    expect(leased?.runAt).toBeLessThanOrEqual(Date.now());
  });

  it('a job made due survives a restart as due', async () => {
    const first = open();
    const job = await first.jobs.enqueue(jobInput());
    await first.jobs.lease('w', 30_000);
    await first.jobs.release(job.id, { runAt: Date.now() + HOUR_MS, note: 'held' });
    expect(await first.jobs.makeDue(job.id)).toBe(true);
    await first.close();
    const second = open();
    expect((await second.jobs.lease('w', 30_000))?.id).toBe(job.id);
  });

  it('a job made due goes after jobs that were due before it, and a coalescing job made due stops waiting for its window', async () => {
    const store = open();
    const { jobs } = store;
    const held = await jobs.enqueue(jobInput());
    await jobs.lease('w', 30_000);
    await jobs.release(held.id, { runAt: Date.now() + HOUR_MS, note: 'held' });
    const fresh = await jobs.enqueue(jobInput());
    const windowed = await jobs.enqueue(jobInput({ coalesce: { key: 'k', windowMs: HOUR_MS, mode: 'all' } }));
    // Made due a few ms after the fresh job was enqueued: due later than it, so after it.
    await new Promise((r) => setTimeout(r, 5));
    expect(await jobs.makeDue(held.id)).toBe(true);
    expect(await jobs.makeDue(windowed.id)).toBe(true);
    const order = [];
    for (let job = await jobs.lease('w', 30_000); job; job = await jobs.lease('w', 30_000)) order.push(job.id);
    expect(order).toEqual([fresh.id, held.id, windowed.id]);
  });
});
