// The fan-out of a job's answer: one attempt per destination not yet delivered, each deliverer looked up by its
// destination's id, each destination's state saved on the job after its attempt, the failures merged into one.
import type { DestinationState, Job, RouteDestination } from '@hookwise/core';
import { HookwiseError, errorMessage, isHookwiseError, isRetryable, renderExtra } from '@hookwise/core';
import type { Route } from '../routes/routes';
import { templateVarsOf } from './job-templates';
import type { WorkerDeps } from './worker-deps';
import { JobParts } from './job-hooks';

/** What the delivery step came to: the job's receipt, or the failure to record. */
export interface DeliveryOutcome {
  receipt?: unknown;
  failure?: { err: unknown; attempt: number; destination: string };
}

export interface FanOutDeps extends Pick<WorkerDeps, 'jobs' | 'logger' | 'lifecycle' | 'retry' | 'delivererById' | 'previous'> {
  /** False once the pool stops: a failure after its abort is the job being handed back, not a failure. */
  isRunning(): boolean;
}

/**
 * Each destination's state for this attempt of the delivery step: as stored on the job, new ones pending. A
 * step that starts afresh (attempt 1: the answer just saved, or a dead letter retried) gives every destination
 * not yet delivered its attempts back; a job stored before fan-out made `attempt - 1` attempts to its one
 * destination.
 */
export function destinationStates(job: Pick<Job, 'destinations'>, destinations: RouteDestination[], attempt: number): DestinationState[] {
  const stored = new Map((job.destinations ?? []).map((st) => [st.destination, st]));
  return destinations.map((target) => {
    const name = target.name ?? target.to;
    const found = stored.get(name);
    if (!found) return { destination: name, status: 'pending', attempts: job.destinations ? 0 : Math.max(0, attempt - 1), errors: [] };
    const state: DestinationState = { ...found, errors: [...found.errors] };
    if (state.status !== 'delivered' && attempt <= 1) Object.assign(state, { status: 'pending', attempts: 0 });
    return state;
  });
}

/**
 * The delivery step: every destination not yet delivered gets one attempt, in the route's order, each with
 * its own attempts, errors and receipt, saved on the job after each one (before the next is tried), so that a
 * retry, a restart or a dead letter's retry never posts again to a destination that has the answer. Returns
 * undefined when shutdown cancelled it, the job's receipt when every destination is delivered, else the
 * failure to record: not retryable (a dead letter) when one destination failed for good or ran out of
 * attempts, retryable (with the largest wait any destination asked for) while all failed ones may retry.
 */
export async function deliverToEach(
  deps: FanOutDeps,
  route: Route,
  job: Job,
  answer: string,
  attempt: number,
  signal: AbortSignal,
  parts: JobParts = JobParts.NONE,
): Promise<DeliveryOutcome | undefined> {
  const { logger, jobs, retry, lifecycle } = deps;
  const destinations = route.destinations?.length ? route.destinations : [{ to: route.deliver, extra: route.deliverExtra }];
  const states = destinationStates(job, destinations, attempt);
  // {__previous__} in a deliver_extra value (previous-event.ts): looked up only when one names it.
  const wantsPrevious = destinations.some((d) => Object.values(d.extra ?? {}).some((value) => String(value).includes('{__previous__')));
  const vars = templateVarsOf({ ...job, previous: wantsPrevious ? await deps.previous?.payloadBefore(route.name, job) : undefined });
  const failed: Array<{ state: DestinationState; err: unknown }> = [];
  for (const [index, target] of destinations.entries()) {
    const state = states[index];
    if (state.status === 'delivered') continue;
    const name = state.destination;
    state.attempts += 1;
    const startedAt = performance.now();
    try {
      const deliverer = await deps.delivererById(target.to);
      const receipt = await deliverer.deliver(
        {
          text: answer,
          route: route.name,
          event: job.event,
          deliveryId: job.deliveryId,
          // A feature may change where it goes (a conversation's answer goes into its thread).
          extra: await parts.extraFor(deliverer, renderExtra(target.extra, job.payload, vars), name),
          destination: name,
        },
        { signal, attempt: state.attempts },
      );
      // Recorded even when shutdown came meanwhile: the platform has the answer, so it must not be sent again.
      Object.assign(state, { status: 'delivered', receipt: receipt ?? {}, deliveredAt: Date.now() });
      await jobs.saveDestinations(job.id, states);
      await parts.delivered(answer, deliverer, receipt, name);
      if (signal.aborted) return undefined;
      logger.info(`delivered ${job.deliveryId} on route '${route.name}' via ${name}`, { route: route.name, delivery_id: job.deliveryId });
      if (lifecycle?.has('delivered')) {
        lifecycle.emit('delivered', {
          jobId: job.id,
          route: route.name,
          deliveryId: job.deliveryId,
          event: job.event,
          attempt: state.attempts,
          destination: name,
          durationMs: performance.now() - startedAt,
          receipt: receipt ?? {},
        });
      }
    } catch (err) {
      if (signal.aborted && !deps.isRunning()) return undefined;
      const retryable = isRetryable(err);
      state.errors.push({ at: Date.now(), step: 'deliver', attempt: state.attempts, destination: name, message: errorMessage(err), retryable });
      if (!retryable || state.attempts >= retry.maxAttempts) state.status = 'dead';
      failed.push({ state, err });
      // Saved now: the next destination's attempt may outlive this process.
      await jobs.saveDestinations(job.id, states);
    }
  }
  return outcomeOf(states, failed);
}

/** One destination: its receipt or its failure as before fan-out; several: receipts by name, or one merged failure. */
function outcomeOf(states: DestinationState[], failed: Array<{ state: DestinationState; err: unknown }>): DeliveryOutcome {
  if (failed.length === 0) {
    if (states.length === 1) return { receipt: states[0].receipt ?? {} };
    return { receipt: { destinations: Object.fromEntries(states.map((st) => [st.destination, st.receipt ?? {}])) } };
  }
  const dead = failed.filter((f) => f.state.status === 'dead');
  const decisive = dead.length ? dead : failed;
  const delivered = states.filter((st) => st.status === 'delivered').map((st) => st.destination);
  const note = states.length > 1 && delivered.length ? ` (delivered to ${delivered.join(', ')}; not sent there again)` : '';
  if (failed.length === 1 && !note) return { failure: { err: failed[0].err, attempt: failed[0].state.attempts, destination: failed[0].state.destination } };
  const message = failed.map((f) => `${f.state.destination}: ${errorMessage(f.err)}`).join('; ') + note;
  const waits = failed.map((f) => (isHookwiseError(f.err) ? f.err.retryAfterSeconds : undefined)).filter((w): w is number => w !== undefined);
  const err = new HookwiseError('HW_E_DELIVERY', message, { retryable: dead.length === 0, retryAfterSeconds: waits.length ? Math.max(...waits) : undefined });
  return { failure: { err, attempt: Math.max(...decisive.map((f) => f.state.attempts)), destination: decisive.map((f) => f.state.destination).join(',') } };
}
