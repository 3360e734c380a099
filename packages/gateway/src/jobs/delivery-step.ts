// The delivery step of a job: an answer that ends it without a delivery (silent, or a route that delivers
// nothing), else the fan-out to the route's destinations and the job completed with their receipts.
import type { Job } from '@hookwise/core';
import { DEFAULT_SILENT_MARKER } from '../config/schema';
import type { Route } from '../routes/routes';
import { deliverToEach, type DeliveryOutcome, type FanOutDeps } from './fan-out';
import { emitCompleted } from './job-events';
import { JobParts } from './job-hooks';
import { silentAnswer, silentNote } from './silent-answer';
import type { WorkerDeps } from './worker-deps';

export type DeliveryStepDeps = FanOutDeps & Pick<WorkerDeps, 'silentMarker'>;

export class DeliveryStep {
  constructor(private readonly deps: DeliveryStepDeps) {}

  /**
   * Completes a job whose answer is not to be delivered: a silent answer, or a route with `deliver: none`.
   * Returns whether it did. Also for an answer saved earlier (a restart between saving and completing): the same
   * answer, the same end.
   */
  async endWithoutDelivery(route: Route, job: Job, answer: string, attempt: number): Promise<boolean> {
    const { jobs, logger, lifecycle } = this.deps;
    const marker = route.silentMarker ?? this.deps.silentMarker ?? DEFAULT_SILENT_MARKER;
    const silent = silentAnswer(answer, marker);
    if (silent) {
      const note = silentNote(silent, marker);
      await jobs.complete(job.id, {}, { outcome: 'silent', note });
      logger.info(`${job.deliveryId} on route '${route.name}' ended silent: ${note}`, { route: route.name, delivery_id: job.deliveryId });
      emitCompleted(lifecycle, route, job, attempt, 'silent', [], note);
      return true;
    }
    if (route.destinations.length === 0) {
      // `deliver: none`: the agent acted through its tools; the job did what it should.
      await jobs.complete(job.id, { target: 'none' });
      logger.info(`${job.deliveryId} on route '${route.name}' done: the route delivers nothing (deliver: none)`, {
        route: route.name,
        delivery_id: job.deliveryId,
      });
      emitCompleted(lifecycle, route, job, attempt, 'delivered', []);
      return true;
    }
    return false;
  }

  /**
   * Delivers the answer to every destination not yet delivered and completes the job when all have it. Returns
   * undefined when shutdown cancelled the step (the job is handed back), else the failure to record, if any.
   */
  async deliver(
    route: Route,
    job: Job,
    answer: string,
    attempt: number,
    signal: AbortSignal,
    parts: JobParts = JobParts.NONE,
  ): Promise<Pick<DeliveryOutcome, 'failure'> | undefined> {
    // A feature may hold the answer (`approval:` waits for an approver, or ends the job as denied or expired).
    if (await parts.holds(answer, attempt)) return {};
    const outcome = await deliverToEach(this.deps, route, job, answer, attempt, signal, parts);
    if (outcome === undefined || outcome.failure) return outcome;
    await this.deps.jobs.complete(job.id, outcome.receipt);
    emitCompleted(
      this.deps.lifecycle,
      route,
      job,
      attempt,
      'delivered',
      route.destinations.map((target) => target.name ?? target.to),
    );
    return {};
  }
}
