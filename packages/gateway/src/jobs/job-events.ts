// The lifecycle events every step of a job tells about it: what an event says of the job, and its end.
import type { Job, JobOutcome, JobQueue } from '@hookwise/core';
import type { Lifecycle } from '../observe/lifecycle';
import type { Route } from '../routes/routes';

/** What every agent event says of the job; the agent step's attempt is the job's. */
export function jobEvent(route: Route, job: Job): { jobId: string; route: string; deliveryId: string; event: string; attempt: number } {
  return { jobId: job.id, route: route.name, deliveryId: job.deliveryId, event: job.event, attempt: job.attempts };
}

/** Tells `completed` listeners how a job ended; built only when someone listens. */
export function emitCompleted(
  lifecycle: Lifecycle | undefined,
  route: Route,
  job: Job,
  attempt: number,
  outcome: JobOutcome,
  destinations: string[],
  note?: string,
): void {
  if (!lifecycle?.has('completed')) return;
  lifecycle.emit('completed', { jobId: job.id, route: route.name, deliveryId: job.deliveryId, event: job.event, attempt, outcome, destinations, note });
}

/** Ends a job as skipped (no agent run, nothing delivered) with `note` saying why, and tells `completed` listeners. */
export async function completeSkipped(jobs: Pick<JobQueue, 'complete'>, lifecycle: Lifecycle | undefined, route: Route, job: Job, note: string): Promise<void> {
  await jobs.complete(job.id, {}, { outcome: 'skipped', note });
  emitCompleted(lifecycle, route, job, job.attempts, 'skipped', [], note);
}
