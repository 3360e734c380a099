// What an operator does to deliveries, on any JobQueue: find one by delivery id or job id, replay it as a new job,
// put dead letters back. The admin API uses these; the CLI does the same on the store when no gateway answers.
import type { Job, JobQueue } from '@hookwise/core';

/** A job by its delivery id (what senders and logs show) or its job id. */
export async function findJob(jobs: JobQueue, id: string): Promise<Job | undefined> {
  return (await jobs.findByDeliveryId(id)) ?? (await jobs.get(id));
}

/**
 * Runs an event again as a new job. It gets a delivery id of its own (`<id>-replay-<ms>`), so that destinations
 * that drop repeated ids do not swallow a replay someone asked for; the original stays as it is.
 */
export function replayJob(jobs: JobQueue, original: Job, now = Date.now()): Promise<Job> {
  return jobs.enqueue({
    route: original.route,
    event: original.event,
    payload: original.payload,
    deliveryId: `${original.deliveryId}-replay-${now}`,
    receivedAt: now,
  });
}

/** Puts the dead letters (of one route, or all) back in the queue at the step where they failed; returns their delivery ids. */
export async function retryDeadLetters(jobs: JobQueue, route?: string): Promise<string[]> {
  const retried: string[] = [];
  for (const job of await jobs.list({ status: 'dead', route })) {
    if (await jobs.retryDead(job.id)) retried.push(job.deliveryId);
  }
  return retried;
}
