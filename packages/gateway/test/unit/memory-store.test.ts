import { MemoryDeliveryIdCache, MemoryJobQueue, MemoryWindowCounters, createMemoryStore } from '@hookwise/gateway';
import { type AcceptRequest, type JobInput } from '@hookwise/core';

// What the memory store does beyond the store contract kit (packages/testing): bounds, expiry, how payloads are kept.

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

describe('MemoryJobQueue lease order and wake-ups with delayed retries', () => {
  const retryError = { at: 0, step: 'deliver', attempt: 1, message: 'destination down', retryable: true } as const;

  /** A queue on a clock the test sets, with helpers to lease one job's id and to lease until nothing is due. */
  function queueAt(start: number): { jobs: MemoryJobQueue; clock: { now: number }; leaseId(): Promise<string | undefined>; leaseAll(): Promise<string[]> } {
    const clock = { now: start };
    const jobs = new MemoryJobQueue(() => clock.now);
    const leaseId = async (): Promise<string | undefined> => (await jobs.lease('worker', 3_600_000))?.id;
    const leaseAll = async (): Promise<string[]> => {
      const ids: string[] = [];
      for (let id = await leaseId(); id !== undefined; id = await leaseId()) ids.push(id);
      return ids;
    };
    return { jobs, clock, leaseId, leaseAll };
  }

  /** Enqueues `count` jobs and leases them all, so that each can be failed with a retry time. */
  async function leasedJobs(queue: ReturnType<typeof queueAt>, count: number): Promise<string[]> {
    for (let i = 0; i < count; i += 1) await queue.jobs.enqueue(input({ i }, `d-${i}`));
    const ids = await queue.leaseAll();
    expect(ids).toHaveLength(count);
    return ids;
  }

  it('among due jobs, leases the one that started waiting first, not the one with the earliest retry time', async () => {
    const queue = queueAt(1_000);
    const [a = '', b = ''] = await leasedJobs(queue, 2);
    await queue.jobs.fail(a, retryError, 5_000);
    queue.clock.now = 2_000;
    await queue.jobs.fail(b, retryError, 3_000);
    const c = (await queue.jobs.enqueue(input({}, 'd-c'))).id;
    queue.clock.now = 2_500;
    expect(await queue.leaseAll()).toEqual([c]);
    const d = (await queue.jobs.enqueue(input({}, 'd-d'))).id;
    queue.clock.now = 4_000;
    expect(await queue.leaseAll()).toEqual([b, d]);
    await queue.jobs.fail(b, retryError, 4_500);
    await queue.jobs.release(d);
    queue.clock.now = 6_000;
    expect(await queue.leaseAll()).toEqual([a, b, d]);
  });

  it('with 5,000 delayed retries, leases each job once its retry time has come, in the order the jobs started waiting', async () => {
    const queue = queueAt(0);
    const ids = await leasedJobs(queue, 5_000);
    // Failed in a shuffled order with retry times between 10,000 and 10,999 (many shared): the waiting order is
    // the order of the fail() calls, whatever the retry times.
    const failOrder = ids.map((id, i) => ({ id, retryAt: 10_000 + ((i * 7_919) % 1_000), order: (i * 3_001) % 5_000 })).sort((x, y) => x.order - y.order);
    for (const { id, retryAt } of failOrder) await queue.jobs.fail(id, retryError, retryAt);
    expect(await queue.leaseAll()).toEqual([]);
    const leased: string[] = [];
    for (let now = 9_950; now <= 11_050; now += 50) {
      queue.clock.now = now;
      const expected = failOrder.filter((job) => job.retryAt <= now && job.retryAt > now - 50).map((job) => job.id);
      const got = await queue.leaseAll();
      expect(got).toEqual(expected);
      leased.push(...got);
    }
    expect(leased).toHaveLength(5_000);
    expect(new Set(leased).size).toBe(5_000);
    expect(leased.slice(0, 3)).toEqual(
      failOrder
        .filter((job) => job.retryAt <= 10_000)
        .slice(0, 3)
        .map((job) => job.id),
    );
  });

  it('does not lease a job that had become due when the clock goes back before its retry time', async () => {
    const queue = queueAt(0);
    const [a = '', b = ''] = await leasedJobs(queue, 2);
    await queue.jobs.release(b);
    await queue.jobs.fail(a, retryError, 100);
    queue.clock.now = 200;
    expect(await queue.leaseId()).toBe(b);
    await queue.jobs.release(b);
    queue.clock.now = 50;
    expect(await queue.leaseAll()).toEqual([b]);
    queue.clock.now = 100;
    expect(await queue.leaseAll()).toEqual([a]);
  });

  describe('wake-ups (fake timers)', () => {
    beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate'] }));
    afterEach(() => jest.useRealTimers());

    it('wakes idle workers exactly when the earliest of 1,000 delayed retries becomes due, and earlier when an earlier retry comes in', async () => {
      const queue = queueAt(0);
      const ids = await leasedJobs(queue, 1_000);
      // Retry times 10,000, 10,010, … 19,990, in a shuffled order; job 0 has the earliest.
      for (const [i, id] of ids.entries()) await queue.jobs.fail(id, retryError, 10_000 + ((i * 37) % 1_000) * 10);
      let woken = 0;
      queue.jobs.onReady(() => {
        woken += 1;
      });
      expect(await queue.leaseId()).toBeUndefined();
      jest.advanceTimersByTime(9_999);
      expect(woken).toBe(0);
      jest.advanceTimersByTime(1);
      expect(woken).toBe(1);

      queue.clock.now = 10_000;
      expect(await queue.leaseAll()).toEqual([ids[0]]);
      jest.advanceTimersByTime(9);
      expect(woken).toBe(1);
      jest.advanceTimersByTime(1);
      expect(woken).toBe(2);

      // Job 0 fails again with a retry 5 ms ahead, before the next one (10,010): the wake-up moves to it.
      queue.clock.now = 10_001;
      await queue.jobs.fail(ids[0] ?? '', retryError, 10_006);
      jest.advanceTimersByTime(4);
      expect(woken).toBe(2);
      jest.advanceTimersByTime(1);
      expect(woken).toBe(3);
      queue.clock.now = 10_010;
      expect((await queue.leaseAll()).length).toBe(2);
      await queue.jobs.close();
    });
  });
});

describe('MemoryJobQueue.findByDeliveryId', () => {
  it('finds a kept job by its delivery id and no job once the done-job bound dropped it', async () => {
    let now = 0;
    const jobs = new MemoryJobQueue(() => (now += 1), 2);
    const finished: string[] = [];
    for (const deliveryId of ['d-a', 'd-b', 'd-c']) {
      await jobs.enqueue(input({ deliveryId }, deliveryId));
      const job = await jobs.lease('owner', 30_000);
      await jobs.complete(job?.id ?? '', { deliveryId });
      finished.push(job?.id ?? '');
    }
    expect(await jobs.findByDeliveryId('d-a')).toBeUndefined();
    expect(await jobs.get(finished[0] ?? '')).toBeUndefined();
    const kept = await jobs.findByDeliveryId('d-b');
    expect(kept && { id: kept.id, status: kept.status, receipt: plain(kept.receipt), payload: plain(kept.payload) }).toEqual({
      id: finished[1],
      status: 'done',
      receipt: { deliveryId: 'd-b' },
      payload: { deliveryId: 'd-b' },
    });
    expect((await jobs.findByDeliveryId('d-c'))?.id).toBe(finished[2]);
    expect(await jobs.findByDeliveryId('d-never')).toBeUndefined();
  });

  it('with jobs sharing a delivery id, finds the first enqueued that is still kept, as a walk over the jobs did', async () => {
    const jobs = new MemoryJobQueue(() => 1_000, 1);
    const [a, b, c] = [
      await jobs.enqueue(input({ n: 'a' }, 'dup')),
      await jobs.enqueue(input({ n: 'b' }, 'dup')),
      await jobs.enqueue(input({ n: 'c' }, 'dup')),
    ];
    const found = async (): Promise<string | undefined> => (await jobs.findByDeliveryId('dup'))?.id;
    expect(await found()).toBe(a.id);
    expect((await jobs.lease('owner', 30_000))?.id).toBe(a.id);
    expect((await jobs.lease('owner', 30_000))?.id).toBe(b.id);
    await jobs.complete(b.id, {});
    await jobs.release(a.id);
    expect(await jobs.findByDeliveryId('dup')).toMatchObject({ id: a.id, status: 'pending', payload: { n: 'a' } });

    // The newer job b is dropped first (bound 1): a is still found.
    const filler = await jobs.enqueue(input({}, 'other'));
    expect((await jobs.lease('owner', 30_000))?.id).toBe(c.id);
    expect((await jobs.lease('owner', 30_000))?.id).toBe(a.id);
    expect((await jobs.lease('owner', 30_000))?.id).toBe(filler.id);
    await jobs.complete(filler.id, {});
    expect(await jobs.get(b.id)).toBeUndefined();
    expect(await found()).toBe(a.id);

    // Then a: c is found, and once c is dropped too, nothing.
    await jobs.complete(a.id, {});
    expect(await jobs.findByDeliveryId('dup')).toMatchObject({ id: a.id, status: 'done' });
    await jobs.complete(c.id, {});
    expect(await jobs.get(a.id)).toBeUndefined();
    expect(await jobs.findByDeliveryId('dup')).toMatchObject({ id: c.id, status: 'done', payload: { n: 'c' } });
    const last = await jobs.enqueue(input({}, 'last'));
    await jobs.lease('owner', 30_000);
    await jobs.complete(last.id, {});
    expect(await found()).toBeUndefined();
    expect((await jobs.findByDeliveryId('last'))?.id).toBe(last.id);
  });
});

describe('MemoryJobQueue coalescing and concurrency keys (on a clock the test sets)', () => {
  const coalesced = (deliveryId: string, receivedAt: number): JobInput => ({
    ...input({ deliveryId }, deliveryId),
    receivedAt,
    coalesce: { key: 'pr-1', windowMs: 5_000, mode: 'latest' },
  });

  describe('wake-ups (fake timers)', () => {
    beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate'] }));
    afterEach(() => jest.useRealTimers());

    it('wakes idle workers when a coalescing window ends, not when an event joins or opens it', async () => {
      const clock = { now: 0 };
      const jobs = new MemoryJobQueue(() => clock.now);
      let woken = 0;
      jobs.onReady(() => {
        woken += 1;
      });
      const job = await jobs.enqueue(coalesced('c-1', 0));
      clock.now = 1_000;
      await jobs.enqueue(coalesced('c-2', 1_000));
      expect(woken).toBe(0);
      jest.advanceTimersByTime(4_999);
      expect(woken).toBe(0);
      jest.advanceTimersByTime(1);
      expect(woken).toBe(1);
      clock.now = 5_000;
      expect((await jobs.lease('worker', 30_000))?.id).toBe(job.id);
      await jobs.close();
    });
  });

  it('keeps jobs parked behind a busy key in their waiting order', async () => {
    const jobs = new MemoryJobQueue(() => 1_000);
    const keyed = (deliveryId: string, concurrencyKey: string): JobInput => ({ ...input({ deliveryId }, deliveryId), concurrencyKey });
    const [a, b, c, d, e] = [
      await jobs.enqueue(keyed('a', 'k')),
      await jobs.enqueue(keyed('b', 'k')),
      await jobs.enqueue(keyed('c', 'other')),
      await jobs.enqueue(keyed('d', 'k')),
      await jobs.enqueue(keyed('e', 'k')),
    ];
    const leaseId = async (): Promise<string | undefined> => (await jobs.lease('worker', 30_000))?.id;
    expect([await leaseId(), await leaseId(), await leaseId()]).toEqual([a.id, c.id, undefined]);
    await jobs.complete(a.id, {});
    expect([await leaseId(), await leaseId()]).toEqual([b.id, undefined]);
    await jobs.fail(b.id, { at: 0, step: 'agent', attempt: 1, message: 'boom', retryable: true }, 0);
    // b starts waiting afresh (after d and e); d waited longest.
    expect([await leaseId(), await leaseId()]).toEqual([d.id, undefined]);
    await jobs.complete(d.id, {});
    expect(await leaseId()).toBe(e.id);
    await jobs.complete(e.id, {});
    expect(await leaseId()).toBe(b.id);
    expect(await jobs.pendingCount()).toBe(2);
  });

  it('forgets a coalesced job under every delivery id merged into it when the done-job bound drops it', async () => {
    const jobs = new MemoryJobQueue(() => 10_000, 1);
    const job = await jobs.enqueue(coalesced('m-1', 0));
    await jobs.enqueue(coalesced('m-2', 0));
    expect((await jobs.findByDeliveryId('m-2'))?.id).toBe(job.id);
    await jobs.lease('worker', 30_000);
    await jobs.complete(job.id, {});
    const next = await jobs.enqueue(input({}, 'next'));
    await jobs.lease('worker', 30_000);
    await jobs.complete(next.id, {});
    expect(await jobs.findByDeliveryId('m-1')).toBeUndefined();
    expect(await jobs.findByDeliveryId('m-2')).toBeUndefined();
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

describe('MemoryJobQueue wake-up timer', () => {
  it('does not wake idle workers at once for a hold further away than a timer can wait (about 24.8 days)', async () => {
    const jobs = new MemoryJobQueue();
    await jobs.enqueue(input({ n: 1 }));
    const leased = await jobs.lease('worker', 60_000);
    // Like a worker: every wake-up leases (which finds nothing due and schedules the next wake-up).
    let wakes = 0;
    jobs.onReady(() => {
      wakes += 1;
      void jobs.lease('worker', 60_000);
    });
    // setTimeout takes at most 2^31-1 ms; a longer delay fires after 1 ms, and the wake-ups would repeat for ever.
    await jobs.release(leased!.id, { runAt: Date.now() + 30 * 24 * 3_600_000, note: 'held for a month' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(wakes).toBe(1); // the release's own wake-up (a freed concurrency key may let another job run)
    expect(await jobs.lease('worker', 60_000)).toBeUndefined();
  });
});
