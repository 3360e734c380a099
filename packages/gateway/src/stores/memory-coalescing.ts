// Coalescing in the memory queue: per (route, coalesce key), the one job that still takes events.
import { COALESCE_MAX_EVENTS, type CoalescedEvents, type Job, type JobInput } from '@hookwise/core';
import { routeKey } from './memory-job-keys';
import type { JobsByDeliveryId } from './memory-jobs-by-delivery-id';

/**
 * The jobs that still take events: pending, never leased, not full. A job leaves when it is first leased or holds
 * COALESCE_MAX_EVENTS events, and never comes back, so a job handed back by a shutdown (attempts 0 again) does
 * not absorb events its interrupted run never saw.
 */
export class CoalescingJobs {
  private readonly open = new Map<string, Job>();

  constructor(private readonly byDeliveryId: JobsByDeliveryId) {}

  /**
   * Makes a new job the one of its (route, key) that takes events, its window counting from its first event; the
   * job's `runAt` is the window's end. `kept` is the event's payload as the queue keeps it.
   */
  start(job: Job, input: JobInput, coalesce: NonNullable<JobInput['coalesce']>, kept: unknown): void {
    const { key, windowMs, mode } = coalesce;
    // The window counts from the first event and is never extended (core's JobInput.coalesce).
    job.runAt = input.receivedAt + windowMs;
    job.coalesceKey = key;
    job.coalesced = mode === 'all' ? { deliveryIds: [input.deliveryId], payloads: [kept] } : { deliveryIds: [input.deliveryId] };
    this.open.set(routeKey(input.route, key), job);
  }

  /** Merges an event into the job of its (route, coalesce key) that still takes events; undefined when there is none. */
  join(input: JobInput, key: string, kept: unknown, at: number): Job | undefined {
    const slot = routeKey(input.route, key);
    const job = this.open.get(slot);
    if (!job) return undefined;
    const events = job.coalesced as CoalescedEvents;
    job.payload = kept;
    job.event = input.event;
    job.updatedAt = at;
    events.deliveryIds.push(input.deliveryId);
    events.payloads?.push(kept);
    this.byDeliveryId.add(input.deliveryId, job);
    if (events.deliveryIds.length >= COALESCE_MAX_EVENTS) this.open.delete(slot);
    return job;
  }

  /** A job being leased takes no more events. */
  leased(job: Job): void {
    if (job.coalesceKey === undefined) return;
    const slot = routeKey(job.route, job.coalesceKey);
    if (this.open.get(slot) === job) this.open.delete(slot);
  }
}
