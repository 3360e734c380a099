// The stored events a trial runs on, read from the configured store the way `deliveries list` reads it (SQLite,
// Redis or a third-party store; a memory store holds nothing outside its gateway): the newest --last N of the
// route, received since --since, with an outcome, or named by --ids. Only events whose run ended (done or dead)
// have an old answer to compare with; --ids may name any. The jobs that continued a conversation (a person's reply,
// run with the conversation's prompt rather than the route's) are left out unless --include replies asks for them:
// the route's prompt rendered over a chat platform's update says nothing, and they would skew the totals.
import { HookwiseError, type Job } from '@hookwise/core';
import { isConversationReplyJob, jobOutcome, parseSince } from '@hookwise/gateway';
import { findDelivery, withDeliveryStore } from './delivery-store';
import type { ProfileChoice } from './profile-choice';

export type TrialOutcome = 'silent' | 'delivered' | 'dead';

export interface EventSelection {
  last: number;
  since?: string;
  ids?: string[];
  outcome?: TrialOutcome;
  /** What is left out unless named: `replies`, the jobs that continued a conversation. */
  include?: Array<'replies'>;
}

/** How many of the route's newest jobs are read to find --last of them that match. */
const SCAN_LIMIT = 2000;

function outcomeOf(job: Job): TrialOutcome | undefined {
  if (job.status === 'dead') return 'dead';
  if (job.status !== 'done') return undefined;
  const outcome = jobOutcome(job);
  return outcome === 'silent' ? 'silent' : outcome === 'delivered' ? 'delivered' : undefined;
}

export function selectionProblem(selection: EventSelection): string | undefined {
  if (selection.since !== undefined) {
    const since = parseSince(selection.since);
    if (typeof since !== 'number') return `--${since.problem}`;
  }
  return undefined;
}

/** The events, newest first, at most `last` (all of --ids). */
export async function selectTrialEvents(choice: ProfileChoice, route: string, selection: EventSelection): Promise<Job[]> {
  return withDeliveryStore(choice, async (store) => {
    if (selection.ids?.length) {
      const jobs: Job[] = [];
      for (const id of selection.ids) {
        const job = await findDelivery(store, id);
        if (job.route !== route) throw new HookwiseError('HW_E_STORE', `delivery '${job.deliveryId}' belongs to route '${job.route}', not '${route}'`);
        jobs.push(job);
      }
      return jobs;
    }
    return pickTrialEvents(await store.jobs.list({ route, limit: SCAN_LIMIT }), selection);
  });
}

/** Of a route's jobs (newest first), the ones the selection names, at most `last`; --ids is not looked at here. */
export function pickTrialEvents(jobs: Job[], selection: EventSelection): Job[] {
  const since = selection.since === undefined ? undefined : parseSince(selection.since);
  const replies = selection.include?.includes('replies') ?? false;
  return jobs
    .filter((job) => {
      const outcome = outcomeOf(job);
      if (outcome === undefined) return false;
      if (!replies && isConversationReplyJob(job)) return false;
      if (selection.outcome && outcome !== selection.outcome) return false;
      return typeof since !== 'number' || job.receivedAt >= since;
    })
    .slice(0, selection.last);
}

export { outcomeOf };
