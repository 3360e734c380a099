// What happens to a failed step: retried with exponential backoff while it may be and attempts are left, else
// kept as a dead letter. The decision is logged, stored on the job, then told to lifecycle listeners.
import type { Job, JobStep } from '@hookwise/core';
import { describeError, errorMessage, isHookwiseError, isRetryable } from '@hookwise/core';
import { backoffDelay } from '../config/retry-policy';
import type { WorkerDeps } from './worker-deps';

/** Where and how long the failed step ran, for the lifecycle events (a delivery names its destination). */
export interface FailedStep {
  destination?: string;
  durationMs: number;
}

/**
 * Records a failed step: due again after the backoff (or the wait the error asked for, if longer) while it is
 * retryable and attempts are left, else a dead letter. A store that cannot record it is logged, never thrown.
 */
export async function recordFailure(
  deps: Pick<WorkerDeps, 'jobs' | 'logger' | 'retry' | 'random' | 'lifecycle' | 'outbound'>,
  job: Job,
  step: JobStep,
  attempt: number,
  err: unknown,
  failed: FailedStep,
): Promise<void> {
  const { logger, retry } = deps;
  const retryable = isRetryable(err);
  // The failure text may quote what an agent or a payload wrote (an agent's stderr): scrubbed once here, for the
  // log line, the stored error (`deliveries show`) and the lifecycle events (observe/outbound-scrub.ts).
  const scrub = (text: string) => (deps.outbound ? deps.outbound.scrub('failure', text) : text);
  const message = scrub(errorMessage(err));
  const willRetry = retryable && attempt < retry.maxAttempts;
  let retryAt: number | null = null;
  if (willRetry) {
    let delay = backoffDelay(attempt, retry, deps.random);
    const hinted = isHookwiseError(err) ? err.retryAfterSeconds : undefined;
    if (hinted !== undefined) delay = Math.max(delay, hinted * 1000);
    retryAt = Date.now() + delay;
    logger.warn(
      `${step} step of ${job.deliveryId} on route '${job.route}' failed (attempt ${attempt}/${retry.maxAttempts}), retrying in ${Math.round(delay / 1000)}s: ${message}`,
      { route: job.route, delivery_id: job.deliveryId },
    );
  } else {
    // The link to the error's docs section is for the person reading the log; the stored message stays plain.
    logger.error(
      `${step} step of ${job.deliveryId} on route '${job.route}' failed for good after ${attempt} attempt(s)${retryable ? '' : ' (not retryable)'}; kept as a dead letter: ${scrub(describeError(err))}`,
      { route: job.route, delivery_id: job.deliveryId },
    );
  }
  try {
    await deps.jobs.fail(
      job.id,
      { at: Date.now(), step, attempt, ...(failed.destination ? { destination: failed.destination } : {}), message, retryable },
      retryAt,
    );
  } catch (storeErr) {
    logger.error(`could not record the failure of job ${job.id}: ${errorMessage(storeErr)}`);
  }
  // After the store write, so that a listener that reads the job sees the retry or the dead letter.
  const { lifecycle } = deps;
  if (willRetry ? lifecycle?.has('retry_scheduled') : lifecycle?.has('dead_lettered')) {
    const event = { jobId: job.id, route: job.route, deliveryId: job.deliveryId, event: job.event, attempt, step, error: message, retryable, ...failed };
    if (willRetry) lifecycle?.emit('retry_scheduled', { ...event, maxAttempts: retry.maxAttempts, delayMs: Math.max(0, (retryAt ?? 0) - Date.now()) });
    else lifecycle?.emit('dead_lettered', event);
  }
}
