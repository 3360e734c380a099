import type { Job } from '@hookwise/core';
import { createLogger } from '../../src/observe/logger';
import { LeaseLoop } from '../../src/jobs/lease-loop';
import { MemoryJobQueue } from '../../src/stores/memory';

// The lease loop's wake-ups: a job made due (JobQueue.makeDue, issue 31) while a lease is under way must not wait
// for the next poll. The queue is the real memory queue; only its first lease is held up, at a point the test picks.

/** The memory queue with its first lease answering only when the test opens the gate (after it looked for a job). */
class GatedQueue extends MemoryJobQueue {
  gate?: Promise<void>;
  leaseWaiting?: () => void;

  override async lease(owner: string, leaseMs: number): Promise<Job | undefined> {
    const job = await super.lease(owner, leaseMs);
    const gate = this.gate;
    this.gate = undefined;
    if (gate) {
      this.leaseWaiting?.();
      await gate;
    }
    return job;
  }
}

/** `promise`'s value, or `fallback` after `ms` (the timer is cleared either way). */
async function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

const input = (deliveryId: string) => ({ route: 'ci', event: 'push', deliveryId, payload: {}, receivedAt: Date.now() });

describe('LeaseLoop wake-ups', () => {
  let loop: LeaseLoop | undefined;
  afterEach(async () => {
    await loop?.stop(100);
  });

  it('runs a job made due while a lease was looking (too early) at once, not at the next poll', async () => {
    const jobs = new GatedQueue();
    const held = await jobs.enqueue(input('held'));
    await jobs.lease('approvals', 30_000);
    await jobs.release(held.id, { runAt: Date.now() + 3_600_000, note: 'waiting for approval' });

    let openGate!: () => void;
    jobs.gate = new Promise<void>((resolve) => (openGate = resolve));
    const leaseLooked = new Promise<void>((resolve) => (jobs.leaseWaiting = resolve));
    const ran: string[] = [];
    let runStarted!: (at: number) => void;
    const started = new Promise<number>((resolve) => (runStarted = resolve));
    loop = new LeaseLoop({
      jobs,
      owner: 'w',
      leaseMs: 30_000,
      // A poll an hour away: only a wake-up can start the job within the test.
      pollMs: 3_600_000,
      concurrency: 1,
      logger: createLogger({ silent: true }),
      async run(job) {
        ran.push(job.id);
        runStarted(Date.now());
        await jobs.complete(job.id, {});
      },
    });
    loop.start();
    await leaseLooked; // the first pump found nothing due and has not finished yet
    const madeDueAt = Date.now();
    expect(await jobs.makeDue(held.id)).toBe(true);
    openGate();
    const startedAt = await within(started, 2_000, -1);
    expect(startedAt).toBeGreaterThanOrEqual(madeDueAt);
    expect(startedAt - madeDueAt).toBeLessThan(1_000);
    expect(ran).toEqual([held.id]);
  });

  it('runs a held job made due by makeDue while the workers are idle', async () => {
    const jobs = new MemoryJobQueue();
    const held = await jobs.enqueue(input('idle'));
    await jobs.lease('approvals', 30_000);
    await jobs.release(held.id, { runAt: Date.now() + 3_600_000, note: 'waiting for approval' });
    const ran: string[] = [];
    let runStarted!: () => void;
    const started = new Promise<void>((resolve) => (runStarted = resolve));
    loop = new LeaseLoop({
      jobs,
      owner: 'w',
      leaseMs: 30_000,
      pollMs: 3_600_000,
      concurrency: 2,
      logger: createLogger({ silent: true }),
      async run(job) {
        ran.push(job.id);
        runStarted();
        await jobs.complete(job.id, {});
      },
    });
    loop.start();
    await new Promise((r) => setTimeout(r, 50));
    expect(ran).toEqual([]);
    const at = Date.now();
    await jobs.makeDue(held.id);
    await within(started, 2_000, undefined);
    expect(ran).toEqual([held.id]);
    expect(Date.now() - at).toBeLessThan(1_000);
  });
});
