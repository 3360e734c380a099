// Coalescing on Redis across gateways: the merge happens inside the accept script, so events reaching two gateways
// at once, while a third leases, each land in exactly one job, and a job never takes an event once leased.
import { type AcceptRequest, type Job, type JobInput } from '@hookwise/core';
import { jobInput } from '@hookwise/testing';
import type { RedisStore } from '../../src';
import { sleep, useRedisFixture } from '../redis-fixture';

function coalescing(windowMs: number, mode: 'latest' | 'all', overrides: Partial<JobInput> = {}): AcceptRequest {
  const job = jobInput({ coalesce: { key: 'pr-7', windowMs, mode }, concurrencyKey: 'pr-7', ...overrides });
  return { route: job.route, deliveryId: job.deliveryId, rateLimit: 100_000, maxPending: 100_000, job };
}

describe('Redis store coalescing across gateways (real redis-server)', () => {
  const redis = useRedisFixture();

  it('keeps each payload as sent (empty arrays stay arrays) and the latest one on the job', async () => {
    const [a, b] = await redis.gateways('payloads', 2);
    const first = coalescing(60_000, 'all', { payload: { labels: [], n: 1, f: 0.1 } });
    const second = coalescing(60_000, 'all', { payload: { labels: [], n: 2, nested: { list: [[], {}] } } });
    const accepted = await a.accept(first);
    expect(await b.accept(second)).toEqual({ outcome: 'accepted', jobId: (accepted as { jobId: string }).jobId, coalesced: true });
    const job = (await b.jobs.findByDeliveryId(second.deliveryId))!;
    expect(job.payload).toEqual(second.job!.payload);
    expect(job.coalesced).toEqual({ deliveryIds: [first.deliveryId, second.deliveryId], payloads: [first.job!.payload, second.job!.payload] });
    expect(job.deliveryId).toBe(first.deliveryId);
  });

  it('puts every event in exactly one job while two gateways accept and a third leases at the same time', async () => {
    const [a, b, c] = await redis.gateways('race', 3);
    const windowMs = 150;
    const accepted: Array<{ deliveryId: string; jobId: string; coalesced: boolean }> = [];
    const leased: Job[] = [];
    let sending = true;
    const leasing = (async () => {
      while (sending || leased.length === 0) {
        const job = await c.jobs.lease('gateway-c', 30_000);
        if (job) {
          leased.push(job);
          await c.jobs.complete(job.id, {});
        } else await sleep(5);
      }
    })();
    const until = Date.now() + 1500;
    for (let i = 0; Date.now() < until; i += 1) {
      // Two at once, one to each gateway.
      const pair = [coalescing(windowMs, 'all'), coalescing(windowMs, 'all')];
      const answers = await Promise.all(pair.map((request, j) => ((i + j) % 2 ? a : b).accept(request)));
      answers.forEach((answer, j) => {
        if (answer.outcome !== 'accepted') throw new Error(`not accepted: ${answer.outcome}`);
        accepted.push({ deliveryId: pair[j]!.deliveryId, jobId: answer.jobId, coalesced: answer.coalesced === true });
      });
      await sleep(10);
    }
    sending = false;
    await leasing;
    // The last job comes due after its window; lease what is left.
    const deadline = Date.now() + 5000;
    while ((await c.jobs.pendingCount()) > 0 && Date.now() < deadline) {
      const job = await c.jobs.lease('gateway-c', 30_000);
      if (job) {
        leased.push(job);
        await c.jobs.complete(job.id, {});
      } else await sleep(20);
    }

    const jobIds = [...new Set(accepted.map((x) => x.jobId))];
    expect(jobIds.length).toBeGreaterThan(1); // the windows ended while events kept coming
    expect(jobIds.length).toBeLessThan(accepted.length / 2); // and most events were merged
    expect(leased.map((job) => job.id).sort()).toEqual([...jobIds].sort());
    for (const job of leased) {
      // What the lease handed out is the job's final content: nothing merged after it was taken.
      const stored = (await c.jobs.get(job.id))!;
      expect(stored.coalesced).toEqual(job.coalesced);
      expect(job.coalesced!.payloads).toHaveLength(job.coalesced!.deliveryIds.length);
      expect(job.coalesced!.deliveryIds[0]).toBe(job.deliveryId);
    }
    const owner = new Map(leased.flatMap((job) => job.coalesced!.deliveryIds.map((id) => [id, job.id] as const)));
    expect(owner.size).toBe(accepted.length); // no delivery id in two jobs, none lost
    for (const event of accepted) {
      expect(owner.get(event.deliveryId)).toBe(event.jobId);
      expect((await a.jobs.findByDeliveryId(event.deliveryId))?.id).toBe(event.jobId);
    }
    expect(accepted.filter((x) => !x.coalesced)).toHaveLength(jobIds.length);
  }, 20_000);

  it('lets one job of a concurrency key run at a time across gateways; the next starts when it ends', async () => {
    const [a, b]: RedisStore[] = await redis.gateways('serial', 2);
    const first = await a.jobs.enqueue(jobInput({ concurrencyKey: 'pr-9' }));
    const second = await b.jobs.enqueue(jobInput({ concurrencyKey: 'pr-9' }));
    expect((await a.jobs.lease('gateway-a', 30_000))?.id).toBe(first.id);
    expect(await b.jobs.lease('gateway-b', 30_000)).toBeUndefined();
    expect((await b.jobs.get(second.id))?.attempts).toBe(0);
    await a.jobs.complete(first.id, {});
    // The key's release moved the waiting job to the front: no need to wait out its retry delay.
    expect((await b.jobs.lease('gateway-b', 30_000))?.id).toBe(second.id);
  });
});
