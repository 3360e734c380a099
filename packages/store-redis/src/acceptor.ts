// The Redis store's accept step: rate hit, delivery-id claim, backpressure, coalescing and the job in one Lua
// script, so an accepted event costs one round trip and no crash can separate a claimed id from its job.
import { HookwiseError, type AcceptOutcome, type AcceptRequest } from '@hookwise/core';
import { packAccept, type AcceptAnswer, type JobArgs } from './accept-scripts';
import { deliveryIdKey } from './delivery-ids';
import type { RedisJobQueue } from './job-queue';
import { rateKey, retryAfterSeconds, type RedisRateLimiter } from './rate-limiter';

export interface RedisAcceptOptions {
  /**
   * Only for claims left by gateways of versions before the one-step accept (which claimed first and stored the
   * job in a second step): how old such a pending claim without its job must be before it is taken over
   * (default 30 s).
   */
  pendingClaimMs?: number;
  /** How long a request waits for such a pending claim to settle (default 2 s). */
  claimWaitMs?: number;
}

/** How often a request waiting for another's pending claim asks again. */
const BUSY_POLL_MS = 20;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Makes the decisions of `SequentialAcceptor` (rate limit, duplicate, filter, backpressure, enqueue, in that
 * order; only accepted work counts against the window) in one atomic script (accept-scripts.ts), which also
 * writes the bullmq job (bullmq-layout.ts) or merges the event into the route's open coalescing job. Its answer
 * also tells the rate limiter how full the window is, so the pipeline's early peek need not ask Redis again.
 */
export class RedisAcceptor {
  private readonly pendingClaimMs: number;
  private readonly claimWaitMs: number;

  constructor(
    private readonly prefix: string,
    private readonly jobs: RedisJobQueue,
    private readonly rateLimiter: RedisRateLimiter | undefined,
    options: RedisAcceptOptions = {},
  ) {
    this.pendingClaimMs = options.pendingClaimMs ?? 30_000;
    this.claimWaitMs = options.claimWaitMs ?? 2000;
  }

  async accept(request: AcceptRequest): Promise<AcceptOutcome> {
    const job = request.job;
    const packed = packAccept(
      {
        claim: deliveryIdKey(this.prefix, request.route, request.deliveryId),
        lookup: this.jobs.lookups.key(request.deliveryId),
        rateBase: rateKey(this.prefix, request.route),
        pointer: job ? this.jobs.pointerKey(job) : `${this.prefix}:no-coalescing`,
      },
      { mode: 'accept', rateLimit: request.rateLimit, maxPending: request.maxPending, pendingClaimMs: this.pendingClaimMs },
      job ? this.jobs.jobArgs(job, request.hints) : IGNORED,
    );
    const answer = await this.runWhenSettled(request, packed);
    switch (answer[0]) {
      case 'rate_limited':
        this.rateLimiter?.learn(request.route, request.rateLimit, request.rateLimit, answer[1]);
        return { outcome: 'rate_limited', retryAfterSeconds: retryAfterSeconds(answer[1]) };
      case 'accepted':
        this.rateLimiter?.learn(request.route, request.rateLimit, answer[2].used, answer[2].leftMs);
        this.jobs.added();
        return { outcome: 'accepted', jobId: answer[1] };
      case 'coalesced':
        this.rateLimiter?.learn(request.route, request.rateLimit, answer[2].used, answer[2].leftMs);
        return { outcome: 'accepted', jobId: answer[1], coalesced: true };
      case 'busy':
        throw new Error('unreachable');
      default:
        return { outcome: answer[0] };
    }
  }

  /** Runs the script, asking again while a pending claim of an older gateway is settling (see RedisAcceptOptions). */
  private async runWhenSettled(request: AcceptRequest, packed: string): Promise<AcceptAnswer> {
    const deadline = Date.now() + this.claimWaitMs;
    let answer = await this.jobs.acceptScript.run(packed);
    while (answer[0] === 'busy') {
      if (Date.now() >= deadline) {
        throw new HookwiseError(
          'HW_E_STORE',
          `delivery ${request.deliveryId} on route '${request.route}' is still being accepted by another request after ${this.claimWaitMs} ms; nothing was accepted, the sender should retry`,
        );
      }
      await sleep(BUSY_POLL_MS);
      answer = await this.jobs.acceptScript.run(packed);
    }
    return answer;
  }
}

/** The job part of the script's arguments for an event the route's filter ignores (no job). */
const IGNORED: JobArgs = {
  jobId: '',
  head: '',
  eventJson: '',
  payloadJson: '',
  deliveryIdJson: '',
  opts: '',
  timestamp: 0,
  delayMs: 0,
  coalesce: '',
  pointerTtlMs: 0,
};
