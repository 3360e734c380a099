// After a decision: the draft in the chat is edited to say what was decided, by whom and when, without its
// buttons (DelivererApproval.decided: Telegram editMessageText, Slack chat.update, Discord Edit Message), so that
// the chat shows the outcome and nobody presses a stale button. Never fails the decision: a deliverer without the
// edit leaves the draft as it was, and a failed edit is logged.
import { errorMessage, type Deliverer, type JobQueue } from '@hookwise/core';
import type { Logger } from 'winston';
import type { ApprovalRecord } from './approval-records';

/** Longest the edit may take. */
const EDIT_TIMEOUT_MS = 15_000;
/** The answer as the draft showed it (draftText cuts it below every platform's limit). */
const SHOWN_MAX = 1700;

export interface DecidedDraftDeps {
  jobs: Pick<JobQueue, 'get'>;
  logger: Logger;
  delivererById(id: string): Deliverer | Promise<Deliverer>;
}

/** The decided draft's text: the decision, who made it and when, then the answer as the draft showed it. */
export function decidedText(record: ApprovalRecord, answer: string | undefined): string {
  const decision = record.status === 'approved' ? 'Approved' : 'Denied';
  const when = new Date(record.decidedAt ?? Date.now()).toISOString();
  const head = `${decision} by ${record.by ?? 'an approver'} at ${when}: route ${record.route}, event ${record.deliveryId}`;
  const outcome = record.status === 'approved' ? 'the answer is delivered.' : 'nothing is delivered.';
  if (answer === undefined) return `${head}; ${outcome}`;
  const shown = answer.length > SHOWN_MAX ? `${answer.slice(0, SHOWN_MAX)}\n… (cut here; the whole answer is on the dashboard)` : answer;
  return `${head}; ${outcome}\n\n${shown}`;
}

/** Edits the decided record's draft where it was posted; resolves when done or given up (logged), never rejects. */
export async function editDecidedDraft(deps: DecidedDraftDeps, record: ApprovalRecord): Promise<void> {
  if (!record.via || record.chat === undefined || !record.messageId) return;
  const meta = { route: record.route, delivery_id: record.deliveryId };
  try {
    const facet = (await deps.delivererById(record.via)).approval;
    if (!facet?.decided) return;
    const answer = (await deps.jobs.get(record.jobId))?.answer;
    await facet.decided({ chat: record.chat, messageId: record.messageId }, decidedText(record, answer), { signal: AbortSignal.timeout(EDIT_TIMEOUT_MS) });
  } catch (err) {
    deps.logger.warn(
      `${record.deliveryId} on route '${record.route}': ${record.status}, but the draft in ${record.via} chat ${record.chat} could not be edited to say so (its buttons stay; a press answers that it is decided): ${errorMessage(err)}`,
      meta,
    );
  }
}
