// A bullmq job as the gateway's Job: bullmq's states grouped into job statuses, and the job read from its data.
import type { Job, JobStatus } from '@hookwise/core';
import type { Job as BullJob, JobType } from 'bullmq';
import type { JobData } from './job-data';

/** The bullmq states of each job status. */
export const STATES: Record<JobStatus, JobType[]> = {
  pending: ['waiting', 'delayed', 'prioritized', 'paused'],
  running: ['active'],
  done: ['completed'],
  dead: ['failed'],
};

function statusOf(state: string): JobStatus | undefined {
  for (const [status, types] of Object.entries(STATES) as Array<[JobStatus, string[]]>)
    if (types.includes(state) || (status === 'pending' && state === 'wait')) return status;
  return undefined;
}

/** The job a bullmq job in `state` holds; done and dead jobs get their receipt, end and (for bullmq's own failures) error. */
export function toJob(job: BullJob<JobData>, state: string): Job {
  const data = job.data;
  const out: Job = { ...data, id: String(job.id), status: statusOf(state) ?? 'pending', errors: [...(data.errors ?? [])] };
  if (out.status === 'done') {
    out.receipt = job.returnvalue;
    out.finishedAt = job.finishedOn;
  }
  if (out.status === 'dead') {
    out.finishedAt = job.finishedOn;
    // A job failed by bullmq itself (stalled too often) has no error of ours; say why it died.
    if (out.errors.length === 0 && job.failedReason)
      out.errors.push({ at: job.finishedOn ?? Date.now(), step: data.step, attempt: data.attempts, message: job.failedReason, retryable: false });
  }
  return out;
}
