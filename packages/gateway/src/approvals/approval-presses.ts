// An ingest step for approvals: a press of a draft's Approve / Deny button arrives as a webhook on a
// route with the platform's source, already verified like any event, and the source says it is a press
// (Source.pressOf: a Telegram callback_query, a Slack block_actions payload, a Discord component interaction). It
// is decided here (jobs/approval-gate.ts) and answered at once as the source wants (Source.pressAnswer: Telegram's
// answerCallbackQuery in the webhook's answer, Discord's interaction response; else an empty 200), never enqueued
// as an event. A source without pressOf costs one property look-up.
import type { ApprovalPress, Source } from '@hookwise/core';
import type { Approvals, DecisionResult } from './approvals';
import type { IngestResult } from '../ingest/pipeline-contract';

const TEXT: Record<string, string> = {
  approved: 'Approved: the answer will be delivered.',
  denied: 'Denied: nothing will be delivered.',
  not_allowed: 'You are not an approver of this answer; nothing changed.',
  unknown: 'This approval is no longer known (done long ago, or never asked).',
};

function pressText(outcome: DecisionResult): string {
  if (outcome.result !== 'already') return TEXT[outcome.result] ?? '';
  const status = outcome.record.status === 'pending' ? 'expired' : outcome.record.status;
  return `Already ${status}${outcome.record.by ? ` by ${outcome.record.by}` : ''}; nothing changed.`;
}

/** Decides the press and answers the platform; a store failure is a 503, which the platforms retry. */
export async function answerPress(approvals: Approvals, press: ApprovalPress, source: Source): Promise<IngestResult> {
  let outcome: DecisionResult;
  try {
    outcome = await approvals.decide(press.jobId, press.decision, press.presser, press.message);
  } catch (err) {
    return { status: 503, body: { error: `the approval could not be recorded: ${(err as Error).message}` }, headers: { 'Retry-After': '5' } };
  }
  const answer = source.pressAnswer?.(press, pressText(outcome));
  return answer ? { status: answer.status, body: answer.body, contentType: answer.contentType } : { status: 200, body: '', contentType: 'text/plain' };
}
