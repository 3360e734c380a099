// The memory queue's lookup of jobs by delivery id.
import type { Job } from '@hookwise/core';

/**
 * For findByDeliveryId: the kept jobs of each delivery id in enqueue order (the lookup answers with the first, the
 * one a walk over the queued jobs met first). One job per id is the rule, so an array only for ids that repeat.
 * A coalesced job is found by each of the delivery ids merged into it.
 */
export class JobsByDeliveryId {
  private readonly jobs = new Map<string, Job | Job[]>();

  add(deliveryId: string, job: Job): void {
    const known = this.jobs.get(deliveryId);
    if (known === undefined) this.jobs.set(deliveryId, job);
    else if (Array.isArray(known)) known.push(job);
    else this.jobs.set(deliveryId, [known, job]);
  }

  /** Forgets a job under every delivery id it was found by. */
  remove(job: Job): void {
    for (const deliveryId of job.coalesced?.deliveryIds ?? [job.deliveryId]) this.removeOne(deliveryId, job);
  }

  private removeOne(deliveryId: string, job: Job): void {
    const known = this.jobs.get(deliveryId);
    if (known === job) this.jobs.delete(deliveryId);
    if (!Array.isArray(known)) return;
    const at = known.indexOf(job);
    if (at >= 0) known.splice(at, 1);
    if (known.length === 1) this.jobs.set(deliveryId, known[0] as Job);
  }

  first(deliveryId: string): Job | undefined {
    const known = this.jobs.get(deliveryId);
    return Array.isArray(known) ? known[0] : known;
  }
}
