import { MemoryJobQueue } from '../../src/stores/memory';
import { type JobInput } from '@hookwise/core';

// The memory queue's lease order with delayed retries, and when it wakes idle workers (beyond the store contract kit).

function input(payload: unknown, deliveryId = 'd-1'): JobInput {
  return { route: 'ci', event: 'push', deliveryId, payload, receivedAt: 1_000 };
}

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
