import { createLogger } from '@hookwise/core';
import { freePort, jobInput, startRedisServer, type RunningRedis } from '@hookwise/testing';
import { createStore, openRedisStore, redactRedisUrl, type RedisStore } from '../src';

const logger = createLogger({ silent: true });

describe('Redis store', () => {
  let redis: RunningRedis;
  let n = 0;
  const opened: RedisStore[] = [];
  const open = async (prefix: string): Promise<RedisStore> => {
    const store = await openRedisStore({ url: redis.url, prefix, stalledIntervalMs: 200 });
    opened.push(store);
    return store;
  };
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close().catch(() => undefined);
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('lets two gateways share delivery ids and one rate window', async () => {
    const prefix = `shared-${(n += 1)}`;
    const [a, b] = [await open(prefix), await open(prefix)];
    const claims = await Promise.all([a.deliveryIds.claim('ci', 'gh-1'), b.deliveryIds.claim('ci', 'gh-1')]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    const hits = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => (i % 2 ? a : b).rateLimiter.hit('ci', 4)));
    expect(hits.filter((h) => h.allowed)).toHaveLength(4);
    expect((await a.rateLimiter.check('ci', 4)).allowed).toBe(false);
  });

  it('hands a killed gateway’s running job to another once its lease runs out', async () => {
    const prefix = `takeover-${(n += 1)}`;
    const a = await open(prefix);
    const b = await open(prefix);
    const job = await a.jobs.enqueue(jobInput());
    expect((await a.jobs.lease('gateway-a', 500))?.id).toBe(job.id);
    expect(await b.jobs.lease('gateway-b', 30_000)).toBeUndefined();
    // Gateway A dies without a word: its connection drops, nobody renews the lock.
    await a.jobs.queue.disconnect().catch(() => undefined);
    await a.close().catch(() => undefined);
    const deadline = Date.now() + 10_000;
    let taken;
    while (!taken && Date.now() < deadline) {
      taken = await b.jobs.lease('gateway-b', 30_000);
      if (!taken) await new Promise((r) => setTimeout(r, 100));
    }
    expect(taken).toMatchObject({ id: job.id, status: 'running', attempts: 2 });
    await b.jobs.complete(job.id, { ok: true });
    expect((await b.jobs.findByDeliveryId(job.deliveryId))?.status).toBe('done');
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
