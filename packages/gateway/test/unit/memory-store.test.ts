import { MemoryDeliveryIdCache, createMemoryStore } from '@hookwise/gateway';
import { MemoryJobQueue, MemoryWindowCounters } from '../../src/stores/memory';
import { type AcceptRequest, type JobInput } from '@hookwise/core';

// What the memory store does beyond the store contract kit (packages/testing): bounds, expiry, how payloads are kept.
// Its queue's lease order and wake-ups: memory-lease-order.test.ts; lookups, coalescing and concurrency keys:
// memory-job-keys.test.ts.

function input(payload: unknown, deliveryId = 'd-1'): JobInput {
  return { route: 'ci', event: 'push', deliveryId, payload, receivedAt: 1_000 };
}

/** Values normalised to this realm: structured clones made by the store may have other prototypes (jest vm). */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('MemoryDeliveryIdCache', () => {
  it('keeps at most `max` ids and forgets the oldest first', async () => {
    const cache = new MemoryDeliveryIdCache({ max: 3 });
    for (const id of ['a', 'b', 'c', 'd']) expect(await cache.claim('ci', id)).toBe(true);
    expect(cache.size).toBe(3);
    expect(await cache.claim('ci', 'd')).toBe(false);
    expect(await cache.claim('ci', 'b')).toBe(false);
    expect(await cache.claim('ci', 'a')).toBe(true);
    expect(cache.size).toBe(3);
  });

  it('forgets an id after the TTL and drops expired ids as new ones come in', async () => {
    let now = 0;
    const cache = new MemoryDeliveryIdCache({ ttlMs: 1_000, now: () => now });
    expect(await cache.claim('ci', 'a')).toBe(true);
    now = 500;
    expect(await cache.claim('ci', 'b')).toBe(true);
    now = 999;
    expect(await cache.claim('ci', 'a')).toBe(false);
    now = 1_000;
    expect(await cache.claim('ci', 'c')).toBe(true);
    expect(cache.size).toBe(2);
    expect(await cache.claim('ci', 'a')).toBe(true);
    expect(await cache.claim('ci', 'a')).toBe(false);
    now = 1_500;
    expect(await cache.claim('ci', 'b')).toBe(true);
  });

  it('keeps route and id apart', async () => {
    const cache = new MemoryDeliveryIdCache();
    expect(await cache.claim('ci', 'x\u0000y')).toBe(true);
    expect(await cache.claim('ci\u0000x', 'y')).toBe(false);
    expect(await cache.claim('c', 'i\u0000x\u0000y')).toBe(true);
    expect(await cache.claim('other', 'x\u0000y')).toBe(true);
  });
});

describe('MemoryJobQueue', () => {
  const payload = { title: 'héllo ✓', list: [1, 2.5, { x: null, y: false }], nested: { deep: { s: 'a"b\\c' } } };
  const json = JSON.stringify(payload);

  it('hands out a payload kept as JSON text as the object it was parsed from, a fresh copy each time', async () => {
    const jobs = new MemoryJobQueue();
    const job = await jobs.enqueue(input(payload), { payloadJson: json });
    expect(job.payload).toBe(payload);
    const first = await jobs.get(job.id);
    expect(plain(first?.payload)).toEqual(payload);
    (first?.payload as { title: string }).title = 'changed';
    expect(plain((await jobs.get(job.id))?.payload)).toEqual(payload);
    expect(plain((await jobs.list())[0]?.payload)).toEqual(payload);
    expect(plain((await jobs.findByDeliveryId('d-1'))?.payload)).toEqual(payload);
    expect(plain((await jobs.lease('owner', 30_000))?.payload)).toEqual(payload);
  });

  it('keeps a payload without its JSON text as a copy the caller cannot change', async () => {
    const jobs = new MemoryJobQueue();
    const given = { n: 1 };
    const job = await jobs.enqueue(input(given));
    const copy = await jobs.get(job.id);
    (copy?.payload as { n: number }).n = 2;
    expect(plain((await jobs.get(job.id))?.payload)).toEqual({ n: 1 });
  });

  it('returns jobs with the fields of the Job interface, in the same shape whichever way the payload was kept', async () => {
    const jobs = new MemoryJobQueue(() => 2_000);
    const withText = await jobs.enqueue(input(payload, 'd-1'), { payloadJson: json });
    const withObject = await jobs.enqueue(input(payload, 'd-2'));
    const expected = {
      route: 'ci',
      event: 'push',
      payload,
      receivedAt: 1_000,
      status: 'pending',
      attempts: 0,
      step: 'agent',
      errors: [],
      runAt: 2_000,
      createdAt: 2_000,
      updatedAt: 2_000,
    };
    for (const job of [withText, withObject, await jobs.get(withText.id), await jobs.get(withObject.id)]) {
      expect(Object.keys(job ?? {})).toEqual([
        'route',
        'event',
        'deliveryId',
        'payload',
        'receivedAt',
        'routeDefinition',
        'id',
        'status',
        'attempts',
        'step',
        'errors',
        'runAt',
        'createdAt',
        'updatedAt',
      ]);
      expect(plain(job)).toEqual({ ...expected, deliveryId: job?.deliveryId, id: job?.id });
    }
  });

  it('gives every job its own UUID-shaped id', async () => {
    const jobs = new MemoryJobQueue();
    const ids = new Set<string>();
    for (let i = 0; i < 300; i += 1) ids.add((await jobs.enqueue(input({ i }, `d-${i}`))).id);
    expect(ids.size).toBe(300);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('keeps at most `doneKept` finished jobs, dead letters always', async () => {
    let now = 0;
    const jobs = new MemoryJobQueue(() => (now += 1), 2);
    const finished: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      await jobs.enqueue(input({ i }, `d-${i}`), { payloadJson: JSON.stringify({ i }) });
      const job = await jobs.lease('owner', 30_000);
      if (!job) throw new Error('expected a job');
      if (i === 0) await jobs.fail(job.id, { at: 0, step: 'agent', attempt: 1, message: 'bad', retryable: false }, null);
      else await jobs.complete(job.id, {});
      finished.push(job.id);
    }
    expect((await jobs.list({ status: 'done' })).map((j) => j.id)).toEqual([finished[3], finished[2]]);
    expect((await jobs.list({ status: 'dead' })).map((j) => j.id)).toEqual([finished[0]]);
    expect(await jobs.get(finished[1] ?? '')).toBeUndefined();
  });
});

describe('MemoryWindowCounters', () => {
  it('counts in fixed windows at multiples of the window length and keeps one entry per counter', async () => {
    let now = 7_250;
    const counters = new MemoryWindowCounters(() => now);
    expect(await counters.add('runs', 2, 1_000)).toBe(2);
    now = 7_999;
    expect(await counters.add('runs', 1, 1_000)).toBe(3);
    now = 8_000;
    expect(await counters.add('runs', 0, 1_000)).toBe(0);
    expect(await counters.add('runs', 1, 1_000)).toBe(1);
    expect(await counters.add('runs', 1, 10_000)).toBe(1);
    now = 30_000;
    expect(await counters.add('runs', 0, 1_000)).toBe(0);
    expect(counters.size).toBe(1);
  });
});

describe("the memory store's accept", () => {
  const request = (deliveryId: string, payload: unknown = { deliveryId }): AcceptRequest => ({
    route: 'ci',
    deliveryId,
    rateLimit: 100,
    maxPending: 100,
    job: input(payload, deliveryId),
  });

  it('decides and queues each event at once, and answers the events of one turn together in the next check phase', async () => {
    const store = createMemoryStore();
    const answered: string[] = [];
    const calls = ['t-1', 't-2', 't-1'].map((id, i) => store.accept?.(request(id)).then((outcome) => answered.push(`${i}:${outcome.outcome}`)));
    expect(await store.jobs.pendingCount()).toBe(2);
    expect((await store.jobs.findByDeliveryId('t-2'))?.status).toBe('pending');
    for (let i = 0; i < 10; i += 1) await Promise.resolve();
    expect(answered).toEqual([]);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(answered).toEqual(['0:accepted', '1:accepted', '2:duplicate']);
    await Promise.all(calls);
    await store.close();
  });

  it('gives the delivery id back when the job cannot be queued, so that the retry is accepted', async () => {
    const store = createMemoryStore();
    // A payload without its JSON text is copied, and a function cannot be.
    await expect(store.accept?.(request('bad', { run: () => 1 }))).rejects.toThrow();
    expect(await store.jobs.pendingCount()).toBe(0);
    expect(await store.accept?.(request('bad'))).toMatchObject({ outcome: 'accepted' });
    await store.close();
  });
});
