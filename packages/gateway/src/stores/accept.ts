// The accept step for stores without an atomic `accept()`: window peek, id claim, filter, backpressure, counted enqueue.
import type { AcceptOutcome, AcceptRequest, Job, Store } from '@hookwise/core';

/** `enqueue` returned a job that an earlier event started: this delivery joined it (coalescing) rather than making one. */
export function isMerged(job: Job, deliveryId: string): boolean {
  const ids = job.coalesced?.deliveryIds;
  return ids !== undefined && ids.length > 1 && ids[0] !== deliveryId;
}

/** How long a pending-job count may be reused while it stays well under the backpressure limit. */
const PENDING_COUNT_REUSE_MS = 250;

/**
 * Makes the decisions of `Store.accept` with the store's separate operations, in the SPEC's order: a full
 * window (peeked, not counted), a duplicate, an ignored event, backpressure; only then is the hit counted, with
 * the enqueue, so that replays and ignored events never use up the route's window. The peek and the claim are
 * issued together (a batching store commits them at once); a full window (also one that filled meanwhile), a
 * refused or a failed enqueue gives the claim back, so nothing is remembered for an event that was not accepted.
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
    const peek = rateLimiter.check(route, request.rateLimit);
    const claim = deliveryIds.claim(route, deliveryId);
    // Awaited below; this only keeps a failure that arrives while we wait for the peek from counting as unhandled.
    claim.catch(() => undefined);
    const giveBack = async (): Promise<void> => {
      if (await claim.catch(() => false)) await deliveryIds.release(route, deliveryId).catch(() => undefined);
    };
    try {
      const window = await peek;
      if (!window.allowed) {
        await giveBack();
        return { outcome: 'rate_limited', retryAfterSeconds: window.retryAfterSeconds };
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
      // Counted only now: this is the first answer that accepts work.
      const counted = await rateLimiter.hit(route, request.rateLimit);
      if (!counted.allowed) {
        await giveBack();
        return { outcome: 'rate_limited', retryAfterSeconds: counted.retryAfterSeconds };
      }
      const job = await jobs.enqueue(request.job, request.hints);
      // Merged into a waiting job of the same coalesce key: no job was added, so the pending slot goes back.
      const merged = isMerged(job, request.deliveryId);
      enqueued = !merged;
      return merged ? { outcome: 'accepted', jobId: job.id, coalesced: true } : { outcome: 'accepted', jobId: job.id };
    } catch (err) {
      // Nothing was accepted: forget the id so that the sender's retry is not taken for a duplicate.
      await giveBack();
      throw err;
    } finally {
      this.settle(enqueued);
    }
  }
}
