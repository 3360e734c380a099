// Job summaries for list views: a store that can read jobs without their payloads (listSummaries) is asked for
// that; any other store's full jobs are cut down to summaries, so that no caller comes to depend on a payload a
// summary-reading store would not give it.
import type { Job, JobFilter, JobQueue, JobSummary } from '@hookwise/core';

/** The fields of a job a list row reads: everything but the payloads, the prompt and the answer. */
export function summaryOf(job: Job): JobSummary {
  const { payload: _payload, prompt: _prompt, answer: _answer, coalesced, ...rest } = job;
  const summary: JobSummary = { ...rest, answered: job.answer !== undefined };
  if (coalesced) summary.coalesced = { deliveryIds: coalesced.deliveryIds };
  return summary;
}

/** Whether an agent run stored an answer, for a summary (`answered`) or a whole job (its `answer`). */
export function wasAnswered(job: JobSummary & { answer?: string }): boolean {
  return job.answered ?? job.answer !== undefined;
}

/** Newest first, as `list`; through `listSummaries` when the store has it (no payload is read), else through `list`. */
export async function listJobSummaries(jobs: Pick<JobQueue, 'list' | 'listSummaries'>, filter: JobFilter = {}): Promise<JobSummary[]> {
  if (jobs.listSummaries) return jobs.listSummaries(filter);
  return (await jobs.list(filter)).map(summaryOf);
}
