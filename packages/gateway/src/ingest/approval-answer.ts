// An ingest step for approvals (issue 31): a press of a draft's Approve / Deny button arrives as a webhook on a
// route with the platform's source, already verified like any event: a Telegram `callback_query` update whose
// callback_data is `hwa:a:<job>` / `hwa:d:<job>`, or a Slack interactivity `block_actions` payload whose action is
// hookwise_approve / hookwise_deny with the job id as value. It is decided here (jobs/approval-gate.ts) and
// answered at once, never enqueued as an event: Telegram gets answerCallbackQuery as the webhook's answer (the Bot
// API runs a method given in the answer to an update), Slack an empty 200 well within its 3 seconds. Anything else
// goes on through the pipeline as before; a route whose source is neither pays one comparison.
import type { Approvals, DecisionResult } from '../jobs/approval-gate';
import { SLACK_APPROVE, SLACK_DENY, TELEGRAM_APPROVE, TELEGRAM_DENY } from '../jobs/approval-send';
import { APPROVAL_JOB_ID, type Presser } from '../jobs/approval-state';
import type { Route } from '../routes/routes';
import type { IngestResult } from './pipeline-contract';

export interface ApprovalPress {
  jobId: string;
  decision: 'approve' | 'deny';
  presser: Presser;
  /** Telegram's callback query id, to answer it. */
  callbackQueryId?: string;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const idText = (value: unknown): string | undefined => (typeof value === 'string' || typeof value === 'number' ? String(value) : undefined);

/** The press a payload is, or undefined when it is none of ours (then the pipeline goes on as before). */
export function approvalPressOf(route: Route, payload: Record<string, unknown>): ApprovalPress | undefined {
  if (route.source === 'telegram') {
    const query = record(payload.callback_query);
    const data = typeof query?.data === 'string' ? query.data : undefined;
    if (!query || !data) return undefined;
    const decision = data.startsWith(TELEGRAM_APPROVE) ? 'approve' : data.startsWith(TELEGRAM_DENY) ? 'deny' : undefined;
    const jobId = data.slice(TELEGRAM_APPROVE.length);
    const from = record(query.from);
    const id = idText(from?.id);
    if (!decision || !APPROVAL_JOB_ID.test(jobId) || id === undefined) return undefined;
    const username = typeof from?.username === 'string' ? from.username : undefined;
    return { jobId, decision, presser: { platform: 'telegram', id, username }, callbackQueryId: idText(query.id) };
  }
  if (route.source === 'slack' && payload.type === 'block_actions' && Array.isArray(payload.actions)) {
    const action = payload.actions.map(record).find((a) => a?.action_id === SLACK_APPROVE || a?.action_id === SLACK_DENY);
    const jobId = typeof action?.value === 'string' ? action.value : '';
    const user = record(payload.user);
    const id = idText(user?.id);
    if (!action || !APPROVAL_JOB_ID.test(jobId) || id === undefined) return undefined;
    const username = typeof user?.username === 'string' ? user.username : typeof user?.name === 'string' ? user.name : undefined;
    return { jobId, decision: action.action_id === SLACK_APPROVE ? 'approve' : 'deny', presser: { platform: 'slack', id, username } };
  }
  return undefined;
}

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

/** Decides the press and answers the platform; a store failure is a 503, which both platforms retry. */
export async function answerPress(approvals: Approvals, press: ApprovalPress): Promise<IngestResult> {
  let outcome: DecisionResult;
  try {
    outcome = await approvals.decide(press.jobId, press.decision, press.presser);
  } catch (err) {
    return { status: 503, body: { error: `the approval could not be recorded: ${(err as Error).message}` }, headers: { 'Retry-After': '5' } };
  }
  if (press.presser.platform === 'telegram' && press.callbackQueryId !== undefined) {
    return { status: 200, body: { method: 'answerCallbackQuery', callback_query_id: press.callbackQueryId, text: pressText(outcome) } };
  }
  return { status: 200, body: '', contentType: 'text/plain' };
}
