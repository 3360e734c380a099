// JobQueue.makeDue on a real redis-server (issue 31: an approval decided while its job waits on a hold), beyond the
// store contract: across two gateways, and on a coalescing job taking events while it is made due.
import { jobInput } from '@hookwise/testing';
import { useRedisFixture } from '../redis-fixture';

const HOUR_MS = 3_600_000;

describe('Redis makeDue (real redis-server)', () => {
  const redis = useRedisFixture();

  it('a job held by one gateway and made due by another is leased by the first at its next lease', async () => {
    const [a, b] = await redis.gateways('two', 2);
    const job = await a.jobs.enqueue(jobInput());
    await a.jobs.lease('gateway-a', 30_000);
    await a.jobs.saveAnswer(job.id, 'p', 'draft');
    await a.jobs.release(job.id, { runAt: Date.now() + HOUR_MS, note: 'waiting for approval' });
    expect(await a.jobs.lease('gateway-a', 30_000)).toBeUndefined();
    const before = Date.now();
    expect(await b.jobs.makeDue(job.id)).toBe(true);
    const seen = await a.jobs.get(job.id);
    expect(seen?.status).toBe('pending');
    expect(seen?.runAt).toBeGreaterThanOrEqual(before);
    expect(seen?.runAt).toBeLessThanOrEqual(Date.now());
    const leased = await a.jobs.lease('gateway-a', 30_000);
    expect(leased?.id).toBe(job.id);
    expect(leased?.answer).toBe('draft');
    expect(leased?.attempts).toBe(1);
    // Made due twice (two presses on two gateways): the second finds it running and changes nothing.
    expect(await b.jobs.makeDue(job.id)).toBe(false);
    expect(await a.jobs.renew(job.id, 'gateway-a', 30_000)).toBe(true);
  });

  it('a coalescing job made due while events keep arriving keeps every event merged into it', async () => {
    const [a, b] = await redis.gateways('coalescing', 2);
    const request = () => {
      const job = jobInput({ coalesce: { key: 'pr-1', windowMs: HOUR_MS, mode: 'all' } });
      return { route: job.route, deliveryId: job.deliveryId, rateLimit: 100_000, maxPending: 100_000, job };
    };
    const first = request();
    const accepted = await a.accept(first);
    if (accepted.outcome !== 'accepted') throw new Error(`not accepted: ${accepted.outcome}`);
    const merged: string[] = [first.deliveryId];
    const others: string[] = [];
    const sending = (async () => {
      for (let i = 0; i < 30; i += 1) {
        const next = request();
        const answer = await b.accept(next);
        if (answer.outcome !== 'accepted') throw new Error(`not accepted: ${answer.outcome}`);
        (answer.jobId === accepted.jobId ? merged : others).push(next.deliveryId);
      }
    })();
    await new Promise((r) => setTimeout(r, 5));
    expect(await a.jobs.makeDue(accepted.jobId)).toBe(true);
    await sending;
    const leased = [];
    for (let job = await a.jobs.lease('gateway-a', 30_000); job; job = await a.jobs.lease('gateway-a', 30_000)) leased.push(job);
    const job = leased.find((j) => j.id === accepted.jobId);
    expect(job).toBeDefined();
    // Every event whose accept named the job is in it: makeDue's write lost none of them.
    expect(job?.coalesced?.deliveryIds).toEqual(merged);
    expect(job?.coalesced?.payloads).toHaveLength(merged.length);
    // The events after the job stopped waiting started a new coalescing job, still in its window.
    expect(leased.map((j) => j.id)).toEqual([accepted.jobId]);
    expect(new Set(others).size).toBe(others.length);
  });

  it('answers false for an unknown id and for a dead letter', async () => {
    const [a] = await redis.gateways('false', 1);
    expect(await a.jobs.makeDue('no-such-job')).toBe(false);
    const job = await a.jobs.enqueue(jobInput());
    await a.jobs.lease('w', 30_000);
    await a.jobs.fail(job.id, { at: Date.now(), step: 'agent', attempt: 1, message: 'broken', retryable: false }, null);
    expect(await a.jobs.makeDue(job.id)).toBe(false);
    expect((await a.jobs.get(job.id))?.status).toBe('dead');
  });
});
