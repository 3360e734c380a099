// The memory store's own accept: the SPEC's decisions in one synchronous step, the answers given once per event-loop turn.
import type { AcceptOutcome, AcceptRequest } from '@hookwise/core';
import type { MemoryDeliveryIdCache } from './memory-delivery-ids';
import type { MemoryJobQueue } from './memory-job-queue';
import type { MemoryRateLimiter } from './memory-rate-limiter';

export interface MemoryStoreParts {
  deliveryIds: MemoryDeliveryIdCache;
  rateLimiter: MemoryRateLimiter;
  jobs: MemoryJobQueue;
}

/**
 * Makes the decisions of `Store.accept` in the SPEC's order (a full window, a duplicate, an ignored event,
 * backpressure, then the counted hit with the enqueue) with no await between them: nothing can interleave, so
 * the pending count is exact (no reservations as in SequentialAcceptor) and a refused or failed enqueue simply
 * gives the claim back.
 */
export function acceptNow(parts: MemoryStoreParts, request: AcceptRequest): AcceptOutcome {
  const { deliveryIds, rateLimiter, jobs } = parts;
  const { route, deliveryId } = request;
  const window = rateLimiter.checkNow(route, request.rateLimit);
  if (!window.allowed) return { outcome: 'rate_limited', retryAfterSeconds: window.retryAfterSeconds };
  if (!deliveryIds.claimNow(route, deliveryId)) return { outcome: 'duplicate' };
  if (!request.job) return { outcome: 'ignored' };
  if (jobs.pendingNow >= request.maxPending) {
    deliveryIds.releaseNow(route, deliveryId);
    return { outcome: 'backpressure' };
  }
  try {
    // Leasable once the turn's answers are out (MemoryAcceptor): no run starts before its event is answered.
    const { job, merged } = jobs.enqueueNow(request.job, request.hints, false);
    // Counted with the enqueue: the window had room a moment ago in this same step.
    rateLimiter.hitNow(route, request.rateLimit);
    return merged ? { outcome: 'accepted', jobId: job.id, coalesced: true } : { outcome: 'accepted', jobId: job.id };
  } catch (err) {
    // Nothing was accepted (e.g. a payload that cannot be copied): the sender's retry must not be a duplicate.
    deliveryIds.releaseNow(route, deliveryId);
    throw err;
  }
}

/**
 * The memory store's `accept`: each request is decided at once (`acceptNow`: its job is queued before the call
 * returns), and the answers of one event-loop turn are handed back together in the next check phase, as the
 * SQLite store's grouped commit does. Answering each request as soon as it was read made every response's socket
 * write cost about 4× as much (profiles of the bench's throughput load: writev ≈ 55 µs per request against ≈ 14 µs)
 * and the memory store more expensive per request than SQLite (docs/performance.md, "Memory store"); the price is
 * one turn of the event loop of latency.
 */
export class MemoryAcceptor {
  private resolvers: Array<(outcome: AcceptOutcome) => void> = [];
  private outcomes: AcceptOutcome[] = [];

  constructor(private readonly parts: MemoryStoreParts) {}

  accept(request: AcceptRequest): Promise<AcceptOutcome> {
    let outcome: AcceptOutcome;
    try {
      outcome = acceptNow(this.parts, request);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve) => {
      if (this.resolvers.length === 0) setImmediate(this.answerAll);
      this.resolvers.push(resolve);
      this.outcomes.push(outcome);
    });
  }

  private readonly answerAll = (): void => {
    const { resolvers, outcomes } = this;
    this.resolvers = [];
    this.outcomes = [];
    for (let i = 0; i < resolvers.length; i += 1) (resolvers[i] as (outcome: AcceptOutcome) => void)(outcomes[i] as AcceptOutcome);
    // The answers' continuations (the pipeline's 202 and its `accepted` event) run as microtasks of this turn; the
    // jobs become leasable in the next one, so no agent run starts before its event was answered and announced.
    setImmediate(this.announce);
  };

  private readonly announce = (): void => this.parts.jobs.announceQueued();
}
