// The Redis store's accept on a real redis-server: a gateway that dies between the delivery-id claim and the
// stored job never makes the sender's retry a duplicate, and duplicates still run once across gateways.
import { DELIVERY_ID_TTL_MS } from '@hookwise/core';
import { type AcceptRequest } from '@hookwise/core';
import { jobInput } from '@hookwise/testing';
import type { RedisStore } from '../../src';
import { connectionOf, eventually, sleep, useRedisFixture } from '../redis-fixture';

function acceptRequest(overrides: Partial<AcceptRequest> = {}): AcceptRequest {
  const job = jobInput(overrides.deliveryId ? { deliveryId: overrides.deliveryId } : {});
  return { route: job.route, deliveryId: job.deliveryId, rateLimit: 1000, maxPending: 1000, job, ...overrides };
}

/**
 * Gateway `store` dies (as with kill -9) at the moment its accept would store the job (`after: 'claim'`) or just
 * after the job was stored (`after: 'store'`): its connection drops and its accept never answers.
 */
function dieDuringAccept(store: RedisStore, after: 'claim' | 'store'): void {
  const addClaimed = store.jobs.addClaimed.bind(store.jobs);
  jest.spyOn(store.jobs, 'addClaimed').mockImplementation(async (input, id) => {
    if (after === 'store') await addClaimed(input, id);
    connectionOf(store).disconnect();
    return new Promise(() => undefined);
  });
}

describe('Redis store accept (real redis-server)', () => {
  const redis = useRedisFixture();
  const claimKey = (request: AcceptRequest): string => `${redis.prefix()}:delivery-id:${request.route}:${request.deliveryId}`;

  it('accepts the retry of a gateway that died after claiming, once the claim is past its pending time', async () => {
    const pendingClaimMs = 800;
    const [dying, survivor] = await redis.gateways('died-claimed', 2, { pendingClaimMs, claimWaitMs: 200 });
    const request = acceptRequest();
    dieDuringAccept(dying, 'claim');
    void dying.accept(request);
    const claimedAt = Date.now();
    const claim = await eventually('the claim', 2000, async () => (await connectionOf(survivor).get(claimKey(request))) ?? undefined);
    expect(claim).toMatch(/^pending:\d+:/);

    // While the claim is young its owner might still store the job: the retry is refused, never a duplicate.
    await expect(survivor.accept(request)).rejects.toThrow(/still being accepted by another request/);
    await sleep(Math.max(0, pendingClaimMs - (Date.now() - claimedAt)) + 50);

    const retried = await survivor.accept(request);
    expect(retried.outcome).toBe('accepted');
    const jobId = (retried as { jobId: string }).jobId;
    expect(await survivor.jobs.pendingCount()).toBe(1);
    expect((await survivor.jobs.findByDeliveryId(request.deliveryId))?.id).toBe(jobId);
    // Now the id is remembered for the full hour.
    expect(await survivor.accept(request)).toEqual({ outcome: 'duplicate' });
    expect(await connectionOf(survivor).get(claimKey(request))).toBe(`job:${jobId}`);
    expect(await connectionOf(survivor).pttl(claimKey(request))).toBeGreaterThan(DELIVERY_ID_TTL_MS - 60_000);
  });

  it('answers duplicate at once for a gateway that died after storing the job, and makes the claim final', async () => {
    const [dying, survivor] = await redis.gateways('died-stored', 2, { pendingClaimMs: 60_000, claimWaitMs: 200 });
    const request = acceptRequest();
    dieDuringAccept(dying, 'store');
    void dying.accept(request);
    const stored = await eventually('the stored job', 2000, () => survivor.jobs.findByDeliveryId(request.deliveryId));
    expect(await connectionOf(survivor).get(claimKey(request))).toMatch(/^pending:/);

    expect(await survivor.accept(request)).toEqual({ outcome: 'duplicate' });
    expect(await connectionOf(survivor).get(claimKey(request))).toBe(`job:${stored.id}`);
    expect(await connectionOf(survivor).pttl(claimKey(request))).toBeGreaterThan(DELIVERY_ID_TTL_MS - 60_000);
    expect(await survivor.jobs.pendingCount()).toBe(1);
  });

  it('gives the claim and the lookup back when the job cannot be stored, so the retry is accepted', async () => {
    const [store] = await redis.gateways('add-fails', 1);
    const request = acceptRequest();
    jest.spyOn(store.jobs, 'addClaimed').mockRejectedValueOnce(new Error('Redis said no'));
    await expect(store.accept(request)).rejects.toThrow('Redis said no');
    expect(await connectionOf(store).exists(claimKey(request), `${redis.prefix()}:job-by-delivery:${request.deliveryId}`)).toBe(0);
    expect((await store.accept(request)).outcome).toBe('accepted');
  });

  it('runs one of many concurrent accepts of one id sent to two gateways', async () => {
    const [a, b] = await redis.gateways('race', 2);
    const request = acceptRequest();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).accept(request)));
    expect(answers.filter((r) => r.outcome === 'accepted')).toHaveLength(1);
    expect(answers.filter((r) => r.outcome === 'duplicate')).toHaveLength(19);
    expect(await a.jobs.pendingCount()).toBe(1);
  });

  it('holds max_pending across two gateways, counting delayed and running jobs', async () => {
    const [a, b] = await redis.gateways('pending', 2);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).accept(acceptRequest({ maxPending: 4 }))));
    expect(answers.filter((r) => r.outcome === 'accepted')).toHaveLength(4);
    expect(answers.filter((r) => r.outcome === 'backpressure')).toHaveLength(6);
    const running = (await a.jobs.lease('gateway-a', 30_000))!;
    const delayed = (await a.jobs.lease('gateway-a', 30_000))!;
    await a.jobs.fail(delayed.id, { at: Date.now(), step: 'agent', attempt: 1, message: 'later', retryable: true }, Date.now() + 60_000);
    expect((await b.accept(acceptRequest({ maxPending: 4 }))).outcome).toBe('backpressure');
    await a.jobs.complete(running.id, {});
    expect((await b.accept(acceptRequest({ maxPending: 4 }))).outcome).toBe('accepted');
  });

  it('remembers an ignored event’s id for the full hour, without a job', async () => {
    const [store] = await redis.gateways('ignored', 1);
    const request = acceptRequest({ job: undefined });
    expect(await store.accept(request)).toEqual({ outcome: 'ignored' });
    expect(await connectionOf(store).get(claimKey(request))).toBe('ignored');
    expect(await connectionOf(store).pttl(claimKey(request))).toBeGreaterThan(DELIVERY_ID_TTL_MS - 60_000);
    expect(await store.accept(acceptRequest({ deliveryId: request.deliveryId }))).toEqual({ outcome: 'duplicate' });
    expect(await store.jobs.pendingCount()).toBe(0);
  });
});
