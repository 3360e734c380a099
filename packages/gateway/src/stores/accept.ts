// The accept step for stores without an atomic `accept()`: rate-limit hit, id claim, filter, backpressure, enqueue.
import type { AcceptOutcome, AcceptRequest, Store } from '@hookwise/core';

/** How long a pending-job count may be reused while it stays well under the backpressure limit. */
const PENDING_COUNT_REUSE_MS = 250;

/**
 * Makes the decisions of `Store.accept` with the store's separate operations. The hit and the claim are issued
 * together (a batching store commits them at once); a full window, a refused or a failed enqueue gives the
 * claim back, so every answer is the one the sequential order (count, claim, enqueue) gives and nothing is
 * remembered for an event that was not accepted.
 */
export class SequentialAcceptor {
  // Backpressure without a count query per request: the last pending count read from the store, when, and
  // the enqueues reserved since (`reserved - base`: those in flight when the count was read, which it may or
  // may not include, and every one reserved after). count + that is an upper bound, so the store is asked
  // only when the bound reaches the limit or is older than PENDING_COUNT_REUSE_MS, and concurrent requests
  // can never pass the limit together (the check and the reservation happen in one synchronous step).
  private count = 0;
  private readAt = -Infinity;
  private base = 0;
  private reserved = 0;
  private inFlight = 0;
  private reading?: Promise<void>;

  constructor(private readonly store: Store) {}

  private bound(): number {
    return this.count + (this.reserved - this.base);
  }

  private readCount(): Promise<void> {
    this.reading ??= (async () => {
      const base = this.reserved - this.inFlight;
      try {
        this.count = await this.store.jobs.pendingCount();
        this.base = base;
        this.readAt = Date.now();
      } finally {
        this.reading = undefined;
      }
    })();
    return this.reading;
  }

  /** True when one more job fits under `maxPending`; the slot is then reserved until `settle` is called. */
  private async reserve(maxPending: number): Promise<boolean> {
    if (Date.now() - this.readAt >= PENDING_COUNT_REUSE_MS || this.bound() >= maxPending) await this.readCount();
    if (this.bound() >= maxPending) return false;
    this.reserved += 1;
    this.inFlight += 1;
    return true;
  }

  private settle(enqueued: boolean): void {
    this.inFlight -= 1;
    if (!enqueued) this.reserved -= 1;
  }

  async accept(request: AcceptRequest): Promise<AcceptOutcome> {
    const { deliveryIds, rateLimiter, jobs } = this.store;
    const { route, deliveryId } = request;
    const hit = rateLimiter.hit(route, request.rateLimit);
    const claim = deliveryIds.claim(route, deliveryId);
    // Awaited below; this only keeps a failure that arrives while we wait for `hit` from counting as unhandled.
    claim.catch(() => undefined);
    const giveBack = async (): Promise<void> => {
      if (await claim.catch(() => false)) await deliveryIds.release(route, deliveryId).catch(() => undefined);
    };
    try {
      const counted = await hit;
      if (!counted.allowed) {
        await giveBack();
        return { outcome: 'rate_limited', retryAfterSeconds: counted.retryAfterSeconds };
      }
      if (!(await claim)) return { outcome: 'duplicate' };
      if (!request.job) return { outcome: 'ignored' };
      if (!(await this.reserve(request.maxPending))) {
        await giveBack();
        return { outcome: 'backpressure' };
      }
    } catch (err) {
      await giveBack();
      throw err;
    }
    let enqueued = false;
    try {
      const job = await jobs.enqueue(request.job, request.hints);
      enqueued = true;
      return { outcome: 'accepted', jobId: job.id };
    } catch (err) {
      // Nothing was accepted: forget the id so that the sender's retry is not taken for a duplicate.
      await giveBack();
      throw err;
    } finally {
      this.settle(enqueued);
    }
  }
}
