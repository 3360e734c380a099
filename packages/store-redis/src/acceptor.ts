// The Redis store's accept step: a claim that stays pending until its job is stored, so no crash can turn the
// sender's retry of an event that was never stored into a "duplicate".
import { randomUUID } from 'node:crypto';
import { DELIVERY_ID_TTL_MS, RATE_WINDOW_MS } from '@hookwise/core';
import { HookwiseError, type AcceptOutcome, type AcceptRequest, type JobInput } from '@hookwise/core';
import type { Redis } from 'ioredis';
import { AcceptScripts, type AcceptKeys, type ClaimAnswer } from './accept-scripts';
import { deliveryIdKey } from './delivery-ids';
import { LIVE_LOOKUP_MS } from './delivery-lookups';
import type { RedisJobQueue } from './job-queue';
import { rateKey, retryAfterSeconds } from './rate-limiter';

export interface RedisAcceptOptions {
  /**
   * How long a claimed delivery id may wait for its job to be stored before another request may take the claim
   * over (default 30 s): far longer than an enqueue takes, so only a claimer that died loses its claim.
   */
  pendingClaimMs?: number;
  /** How long a request waits for another request's pending claim of the same id to settle (default 2 s). */
  claimWaitMs?: number;
}

/** How often a request waiting for another's pending claim asks again. */
const BUSY_POLL_MS = 20;

/** What a claim answers once no other request's claim is pending. */
type SettledAnswer = Exclude<ClaimAnswer, ['busy']>;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Makes the decisions of `SequentialAcceptor` (rate limit, duplicate, filter, backpressure, enqueue, in that
 * order; only accepted work counts against the window), with three round trips: one script peeks at the window,
 * checks backpressure, then counts the hit and claims the id as *pending* (with the delivery-id lookup); bullmq stores the job; a second script makes the claim final for the full
 * hour. A request that finds a pending claim whose job is stored answers duplicate; one whose claim is fresh
 * waits for it to settle (if it does not within `claimWaitMs`, the request fails and the sender retries later);
 * one that is older than `pendingClaimMs` without a job was left by a claimer that died, and is taken over.
 * Backpressure counts pending claims too, in Redis, so it holds across gateways.
 */
export class RedisAcceptor {
  private readonly scripts: AcceptScripts;
  private readonly pendingClaimMs: number;
  private readonly claimWaitMs: number;

  constructor(
    client: Redis,
    private readonly prefix: string,
    private readonly jobs: RedisJobQueue,
    options: RedisAcceptOptions = {},
  ) {
    this.scripts = new AcceptScripts(client);
    this.pendingClaimMs = options.pendingClaimMs ?? 30_000;
    this.claimWaitMs = options.claimWaitMs ?? 2000;
  }

  private keys(route: string, deliveryId: string): AcceptKeys {
    return {
      claim: deliveryIdKey(this.prefix, route, deliveryId),
      reservations: `${this.prefix}:accepting`,
      lookup: this.jobs.lookups.key(deliveryId),
      rateBase: rateKey(this.prefix, route),
    };
  }

  private claim(request: AcceptRequest, keys: AcceptKeys, jobId: string): Promise<ClaimAnswer> {
    return this.scripts.claim(keys, {
      rateLimit: request.rateLimit,
      rateWindowMs: RATE_WINDOW_MS,
      jobId,
      maxPending: request.maxPending,
      pendingClaimMs: this.pendingClaimMs,
      dedupeTtlMs: DELIVERY_ID_TTL_MS,
      lookupTtlMs: LIVE_LOOKUP_MS,
      jobKeyPrefix: this.jobs.jobKeyPrefix,
    });
  }

  /** Claims as `claim` does, asking again while another request's claim is pending (only a claim counts a hit). */
  private async claimWhenSettled(request: AcceptRequest, keys: AcceptKeys, jobId: string): Promise<SettledAnswer> {
    const deadline = Date.now() + this.claimWaitMs;
    let answer = await this.claim(request, keys, jobId);
    while (answer[0] === 'busy') {
      if (Date.now() >= deadline) {
        throw new HookwiseError(
          'HW_E_STORE',
          `delivery ${request.deliveryId} on route '${request.route}' is still being accepted by another request after ${this.claimWaitMs} ms; nothing was accepted, the sender should retry`,
        );
      }
      await sleep(BUSY_POLL_MS);
      answer = await this.claim(request, keys, jobId);
    }
    return answer as SettledAnswer;
  }

  async accept(request: AcceptRequest): Promise<AcceptOutcome> {
    const keys = this.keys(request.route, request.deliveryId);
    const jobId = request.job ? randomUUID() : '';
    const answer = await this.claimWhenSettled(request, keys, jobId);
    switch (answer[0]) {
      case 'rate_limited':
        return { outcome: 'rate_limited', retryAfterSeconds: retryAfterSeconds(answer[1]) };
      case 'claimed':
        return this.store(request.job!, keys, jobId);
      default:
        return { outcome: answer[0] };
    }
  }

  /** Stores the claimed job and settles the claim: final when the job exists, given back when it does not. */
  private async store(job: JobInput, keys: AcceptKeys, jobId: string): Promise<AcceptOutcome> {
    const settle = (): Promise<boolean> => this.scripts.settle(keys, jobId, DELIVERY_ID_TTL_MS, this.jobs.jobKeyPrefix);
    try {
      await this.jobs.addClaimed(job, jobId);
    } catch (err) {
      // The add may have been stored though its answer was lost: settle says which.
      if (await settle().catch(() => false)) return { outcome: 'accepted', jobId };
      throw err;
    }
    // The job is stored, so the event is accepted even if this fails: the claim then stays pending, and the
    // next request for the id finds the job and makes the claim final itself.
    await settle().catch(() => undefined);
    return { outcome: 'accepted', jobId };
  }
}
