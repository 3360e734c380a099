import { createLogger } from '@hookwise/gateway';
import { freePort, jobInput } from '@hookwise/testing';
import { createStore, redactRedisUrl, type RedisStore, type RedisStoreOptions } from '../../src';
import { connectionOf, sleep, useRedisFixture } from '../redis-fixture';

const logger = createLogger({ silent: true });

/** Leases until a job comes or `withinMs` is over; undefined when none came. */
async function leaseWithin(store: RedisStore, owner: string, withinMs: number) {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const job = await store.jobs.lease(owner, 30_000);
    if (job || Date.now() > deadline) return job;
    await sleep(50);
  }
}

describe('Redis store', () => {
  const redis = useRedisFixture();
  /** Two gateways on one fresh prefix. */
  const twoGateways = async (name: string, options?: Partial<RedisStoreOptions>): Promise<[RedisStore, RedisStore]> => {
    const [a, b] = await redis.gateways(name, 2, options);
    return [a, b];
  };
  /** A 0.5 s lock, renewed and checked often: a test can wait through many of them. */
  const shortLock = { lockMs: 500, lockRenewMs: 100, stalledIntervalMs: 100 };

  it('lets two gateways share delivery ids and one rate window', async () => {
    const [a, b] = await twoGateways('shared');
    const claims = await Promise.all([a.deliveryIds.claim('ci', 'gh-1'), b.deliveryIds.claim('ci', 'gh-1')]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    const hits = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => (i % 2 ? a : b).rateLimiter.hit('ci', 4)));
    expect(hits.filter((h) => h.allowed)).toHaveLength(4);
    expect((await a.rateLimiter.check('ci', 4)).allowed).toBe(false);
  });

  it('hands a killed gateway’s running job to another within seconds, though its lease is 30 s', async () => {
    // The defaults a gateway runs with: a 5 s lock checked every second, and the default 30 s lease.
    const [a, b] = await twoGateways('takeover', {});
    const job = await a.jobs.enqueue(jobInput());
    expect((await a.jobs.lease('gateway-a', 30_000))?.id).toBe(job.id);
    expect(await b.jobs.lease('gateway-b', 30_000)).toBeUndefined();
    // Gateway A dies without a word (kill -9): its connection drops, it releases nothing and renews nothing.
    // (Closing it at once only stops its timers, as death would, so that none outlives the test; close releases nothing.)
    connectionOf(a).disconnect();
    await a.close().catch(() => undefined);
    const killedAt = Date.now();
    const taken = await leaseWithin(b, 'gateway-b', 12_000);
    expect(taken).toMatchObject({ id: job.id, status: 'running', attempts: 2 });
    expect(Date.now() - killedAt).toBeLessThan(9000); // the 5 s lock plus a check or two, not the 30 s lease
    expect(await a.jobs.renew(job.id, 'gateway-a', 30_000)).toBe(false);
    await b.jobs.complete(job.id, { ok: true });
    expect((await b.jobs.findByDeliveryId(job.deliveryId))?.status).toBe('done');
  }, 20_000);

  it('lets a live gateway keep a job far longer than its lock, without renewing the lease', async () => {
    const [a, b] = await twoGateways('live', shortLock);
    const job = await a.jobs.enqueue(jobInput());
    expect((await a.jobs.lease('gateway-a', 30_000))?.id).toBe(job.id);
    // Eight lock times and many stalled checks go by: the job stays A's, run once.
    expect(await leaseWithin(b, 'gateway-b', 4000)).toBeUndefined();
    expect(await a.jobs.renew(job.id, 'gateway-a', 30_000)).toBe(true);
    await a.jobs.complete(job.id, { ok: true });
    expect(await b.jobs.get(job.id)).toMatchObject({ status: 'done', attempts: 1 });
  }, 15_000);

  it('gives a job away once its owner stops renewing the lease, not before', async () => {
    const [a, b] = await twoGateways('lapse', shortLock);
    const job = await a.jobs.enqueue(jobInput());
    const leasedAt = Date.now();
    expect((await a.jobs.lease('gateway-a', 1500))?.id).toBe(job.id);
    await sleep(1000);
    expect(await a.jobs.renew(job.id, 'gateway-a', 1500)).toBe(true);
    const renewedAt = Date.now();
    // Then A's owner goes quiet: the lease ends 1.5 s after that renewal, and only then does the lock lapse.
    const taken = await leaseWithin(b, 'gateway-b', 6000);
    expect(taken).toMatchObject({ id: job.id, attempts: 2 });
    expect(Date.now() - renewedAt).toBeGreaterThanOrEqual(1400);
    expect(Date.now() - leasedAt).toBeGreaterThanOrEqual(2400);
    expect(await a.jobs.renew(job.id, 'gateway-a', 1500)).toBe(false);
  }, 15_000);

  it('finds every enqueued job by its delivery id, from any gateway and in every state', async () => {
    const [a, b] = await twoGateways('lookup');
    const jobs = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).jobs.enqueue(jobInput())));
    for (const job of jobs) {
      expect((await a.jobs.findByDeliveryId(job.deliveryId))?.id).toBe(job.id);
      expect((await b.jobs.findByDeliveryId(job.deliveryId))?.id).toBe(job.id);
    }
    const done = (await a.jobs.lease('gateway-a', 30_000))!;
    await a.jobs.complete(done.id, {});
    const dead = (await b.jobs.lease('gateway-b', 30_000))!;
    await b.jobs.fail(dead.id, { at: Date.now(), step: 'agent', attempt: 1, message: 'no', retryable: false }, null);
    const running = (await a.jobs.lease('gateway-a', 30_000))!;
    expect((await b.jobs.findByDeliveryId(done.deliveryId))?.status).toBe('done');
    expect((await a.jobs.findByDeliveryId(dead.deliveryId))?.status).toBe('dead');
    expect((await b.jobs.findByDeliveryId(running.deliveryId))?.status).toBe('running');
  });

  it('stores a job and its delivery-id lookup in one script: a script cut short by an error leaves neither', async () => {
    const [store] = await redis.gateways('cut-short', 1);
    const prefix = redis.prefix();
    const input = jobInput();
    // bullmq's meta hash as a string: the script fails where it stores the job, before the lookup is written.
    await connectionOf(store).set(`${prefix}:jobs:meta`, 'not a hash');
    await expect(store.jobs.enqueue(input)).rejects.toThrow(/WRONGTYPE/);
    expect(await connectionOf(store).exists(`${prefix}:job-by-delivery:${input.deliveryId}`)).toBe(0);
    await connectionOf(store).del(`${prefix}:jobs:meta`);
    const job = await store.jobs.enqueue(input);
    expect((await store.jobs.findByDeliveryId(input.deliveryId))?.id).toBe(job.id);
    expect(await store.jobs.pendingCount()).toBe(1);
  });

  it('refuses to start without store.url, saying what to set', async () => {
    await expect(createStore({ config: { backend: 'redis', max_pending: 10 }, configDir: '/tmp', logger })).rejects.toThrow(/store\.url is not set/);
  });

  it('says Redis is unreachable without showing the password', async () => {
    const port = await freePort();
    const url = `redis://:s3cret-pass@127.0.0.1:${port}`;
    const err = await createStore({ config: { backend: 'redis', max_pending: 10, url }, configDir: '/tmp', logger }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/cannot reach Redis at redis:\/\/\*\*\*@127\.0\.0\.1:\d+.*start Redis or fix store\.url/);
    expect((err as Error).message).not.toContain('s3cret-pass');
  });

  it('redacts user and password in URLs', () => {
    expect(redactRedisUrl('redis://user:pw@host:6379/0')).toBe('redis://***@host:6379/0');
    expect(redactRedisUrl('rediss://host:6380')).toBe('rediss://host:6380');
  });
});
