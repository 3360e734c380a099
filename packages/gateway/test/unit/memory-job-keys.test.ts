import { MemoryJobQueue } from '../../src/stores/memory';
import { type JobInput } from '@hookwise/core';

// The memory queue's lookups by delivery id, coalescing and concurrency keys (beyond the store contract kit).

function input(payload: unknown, deliveryId = 'd-1'): JobInput {
  return { route: 'ci', event: 'push', deliveryId, payload, receivedAt: 1_000 };
}

/** Values normalised to this realm: structured clones made by the store may have other prototypes (jest vm). */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

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
