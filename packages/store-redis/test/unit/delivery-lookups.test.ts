// The delivery-id lookup behind `hookwise deliveries show <delivery id>` lives as long as its job: for good for
// a dead letter (bullmq keeps those), the done retention for a done job.
import { jobInput } from '@hookwise/testing';
import type { RedisStore } from '../../src';
import { LIVE_LOOKUP_MS } from '../../src/delivery-lookups';
import { connectionOf, eventually, useRedisFixture } from '../redis-fixture';

const DAY_MS = 24 * 3600 * 1000;

describe('Redis store delivery-id lookups (real redis-server)', () => {
  const redis = useRedisFixture();
  const lookupTtl = (store: RedisStore, deliveryId: string): Promise<number> => connectionOf(store).pttl(`${redis.prefix()}:job-by-delivery:${deliveryId}`);
  const deadError = { at: 0, step: 'deliver' as const, attempt: 1, message: 'HTTP 400', retryable: false };

  it('keeps a dead letter’s lookup for good, and lets it expire again once the job is retried and done', async () => {
    const [store] = await redis.gateways('dead', 1, { doneRetentionMs: 2 * DAY_MS, stalledIntervalMs: 200 });
    const input = jobInput();
    const accepted = await store.accept({ route: input.route, deliveryId: input.deliveryId, rateLimit: 10, maxPending: 10, job: input });
    expect(accepted.outcome).toBe('accepted');
    expect(await lookupTtl(store, input.deliveryId)).toBeGreaterThan(LIVE_LOOKUP_MS - 60_000);

    const job = (await store.jobs.lease('gateway-a', 30_000))!;
    await store.jobs.fail(job.id, { ...deadError, at: Date.now() }, null);
    expect(await lookupTtl(store, input.deliveryId)).toBe(-1);
    expect(await store.jobs.findByDeliveryId(input.deliveryId)).toMatchObject({ id: job.id, status: 'dead' });

    expect(await store.jobs.retryDead(job.id)).toBe(true);
    expect(await lookupTtl(store, input.deliveryId)).toBeGreaterThan(LIVE_LOOKUP_MS - 60_000);
    await eventually('the retried job is leased', 5000, () => store.jobs.lease('gateway-a', 30_000));
    await store.jobs.complete(job.id, { ok: true });
    const ttl = await lookupTtl(store, input.deliveryId);
    expect(ttl).toBeGreaterThan(2 * DAY_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(2 * DAY_MS);
    expect(await store.jobs.findByDeliveryId(input.deliveryId)).toMatchObject({ id: job.id, status: 'done' });
  });

  it('keeps the lookup of a job that died by stalling too often (its gateway kept dying)', async () => {
    const options = { lockMs: 500, lockRenewMs: 100, stalledIntervalMs: 100, maxStalledCount: 0 };
    const [dying, survivor] = await redis.gateways('poison', 2, options);
    const job = await dying.jobs.enqueue(jobInput());
    expect((await dying.jobs.lease('gateway-a', 30_000))?.id).toBe(job.id);
    connectionOf(dying).disconnect(); // killed mid-job: its lock lapses
    // The survivor's stalled check finds it over the limit; its next lease makes it a dead letter, not a job to run.
    const dead = await eventually('the poison job is a dead letter', 8000, async () => {
      expect(await survivor.jobs.lease('gateway-b', 30_000)).toBeUndefined();
      const seen = await survivor.jobs.get(job.id);
      return seen?.status === 'dead' ? seen : undefined;
    });
    expect(dead.errors.map((e) => e.message)).toEqual(['job stalled more than allowable limit']);
    expect(await lookupTtl(survivor, job.deliveryId)).toBe(-1);
    expect((await survivor.jobs.findByDeliveryId(job.deliveryId))?.id).toBe(job.id);
  }, 15_000);

  it('leaves alone a lookup that names a newer job of the same delivery id', async () => {
    const [store] = await redis.gateways('newer', 1);
    const older = await store.jobs.enqueue(jobInput({ route: 'a', deliveryId: 'same-id' }));
    const newer = await store.jobs.enqueue(jobInput({ route: 'b', deliveryId: 'same-id' }));
    expect((await store.jobs.lease('gateway-a', 30_000))?.id).toBe(older.id);
    await store.jobs.fail(older.id, { ...deadError, at: Date.now() }, null);
    expect(await lookupTtl(store, 'same-id')).toBeGreaterThan(0);
    expect((await store.jobs.findByDeliveryId('same-id'))?.id).toBe(newer.id);
  });
});
