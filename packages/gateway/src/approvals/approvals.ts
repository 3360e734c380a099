// Approvals: "an approval is a hold on a step". After the agent's answer is saved, a route with
// `approval:` does not deliver: the first time, the draft goes to the approval chat with Approve / Deny buttons and
// a record goes to the memos (approval-state.ts); then the job is released with a hold, the way a spent budget
// waits (budget-refusals.ts). Each time the job is leased again the record decides: approved -> deliver (once: the
// job is then completed like any other), denied -> done as `denied`, past its expiry -> done as `expired`, still
// pending -> held again. A decision makes the held job due at once (JobQueue.makeDue); a held job is also looked
// at again every `recheckMs` (and at its expiry), which bounds the wait on a store without makeDue.
import { approvalButtonData, HookwiseError, type Deliverer, type Job, type JobQueue, type MemoKV, type MessageRef } from '@hookwise/core';
import type { Logger } from 'winston';
import type { Lifecycle } from '../observe/lifecycle';
import type { Route } from '../routes/routes';
import { ApprovalRecords, isApprover, pressedOnDraft, presserText, type ApprovalRecord, type Presser } from './approval-records';
import { emitCompleted, jobEvent } from '../jobs/job-events';
import { editDecidedDraft } from './approval-decided';

export interface ApprovalsDeps {
  jobs: JobQueue;
  memos: MemoKV;
  logger: Logger;
  lifecycle?: Lifecycle;
  /** The deliverer of `approval.via` (an id or alias); its `approval` facet posts the draft. */
  delivererById(id: string): Deliverer | Promise<Deliverer>;
  /** How often a held job is looked at again (default 5 s). */
  recheckMs?: number;
}

/** What a press or the dashboard achieved. */
export type DecisionResult =
  { result: 'approved' | 'denied'; record: ApprovalRecord } | { result: 'not_allowed' | 'already'; record: ApprovalRecord } | { result: 'unknown' };

const DEFAULT_RECHECK_MS = 5000;
/** Longest the draft's post may take; a failure is retried as a delivery failure would be. */
const DRAFT_TIMEOUT_MS = 30_000;
/** Telegram's message limit is 4096 characters, a Slack section's text 3000, Discord's 2000: the draft is cut below all. */
const DRAFT_MAX = 1700;

/** The draft as people read it in the chat: what is asked, until when, and the answer (cut, whole on the dashboard). */
export function draftText(route: string, deliveryId: string, answer: string, expiresAt: number): string {
  const shown = answer.length > DRAFT_MAX ? `${answer.slice(0, DRAFT_MAX)}\n… (cut here; the whole answer is on the dashboard)` : answer;
  return `Approval needed: route ${route}, event ${deliveryId} (expires ${new Date(expiresAt).toISOString()})\n\n${shown}`;
}

export class Approvals {
  readonly records: ApprovalRecords;
  /** Per job, the decision being made: two presses of one gateway are decided one after the other. */
  private readonly deciding = new Map<string, Promise<DecisionResult>>();

  constructor(private readonly deps: ApprovalsDeps) {
    this.records = new ApprovalRecords(deps.memos);
  }

  /**
   * Called by the delivery step with the saved answer. Returns true when the job must not be delivered now: it
   * was held (and released) or ended as denied or expired; false when it is approved (or the route asks none).
   */
  async holds(route: Route, job: Job, answer: string, attempt: number): Promise<boolean> {
    const approval = route.approval;
    if (!approval) return false;
    const { jobs, logger, lifecycle } = this.deps;
    const now = Date.now();
    let record = await this.records.get(job.id);
    if (!record) record = await this.request(route, job, answer, now);
    if (record.status === 'approved') return false;
    if (record.status === 'pending' && now >= record.expiresAt) {
      record = { ...record, status: 'expired', decidedAt: now };
      await this.records.put(record);
    }
    if (record.status === 'denied' || record.status === 'expired') {
      const note =
        record.status === 'denied'
          ? `approval denied by ${record.by ?? 'an approver'}; nothing delivered`
          : `approval expired at ${new Date(record.expiresAt).toISOString()} unanswered; nothing delivered`;
      await jobs.complete(job.id, {}, { outcome: record.status, note });
      logger.info(`${job.deliveryId} on route '${route.name}' ended ${record.status}: ${note}`, { route: route.name, delivery_id: job.deliveryId });
      emitCompleted(lifecycle, route, job, attempt, record.status, [], note);
      return true;
    }
    const recheckMs = this.deps.recheckMs ?? DEFAULT_RECHECK_MS;
    await jobs.release(job.id, {
      runAt: Math.min(record.expiresAt, now + recheckMs),
      note: `waiting for approval by ${record.approvers.join(', ')} until ${new Date(record.expiresAt).toISOString()}`,
    });
    return true;
  }

  /** The first time: the draft is posted (a failure is retried as a delivery failure would be), then recorded. */
  private async request(route: Route, job: Job, answer: string, now: number): Promise<ApprovalRecord> {
    const approval = route.approval!;
    const record: ApprovalRecord = {
      jobId: job.id,
      route: route.name,
      deliveryId: job.deliveryId,
      status: 'pending',
      approvers: approval.approvers,
      requestedAt: now,
      expiresAt: now + (approval.expires_hours ?? 24) * 3600_000,
      via: approval.via,
    };
    if (approval.via) {
      const facet = (await this.deps.delivererById(approval.via)).approval;
      if (!facet) {
        throw new HookwiseError(
          'HW_E_DELIVERY_TARGET',
          `route '${route.name}': approval.via is '${approval.via}', which cannot post drafts with buttons; use telegram, slack or discord, or leave via unset for the dashboard only`,
          { retryable: false },
        );
      }
      const posted = await facet.postDraft(
        {
          jobId: job.id,
          route: route.name,
          deliveryId: job.deliveryId,
          text: draftText(route.name, job.deliveryId, answer, record.expiresAt),
          expiresAt: record.expiresAt,
          approveData: approvalButtonData('approve', job.id),
          denyData: approvalButtonData('deny', job.id),
        },
        { chat: approval.chat === undefined ? undefined : String(approval.chat), signal: AbortSignal.timeout(DRAFT_TIMEOUT_MS) },
      );
      record.platform = facet.platform;
      record.chat = posted.chat;
      record.messageId = posted.messageId;
    }
    await this.records.put(record);
    const where = approval.via ? `${approval.via} chat ${record.chat}` : 'the dashboard';
    this.deps.logger.info(
      `${job.deliveryId} on route '${route.name}': answer held for approval (draft in ${where}; approvers ${record.approvers.join(', ')})`,
      {
        route: route.name,
        delivery_id: job.deliveryId,
      },
    );
    if (this.deps.lifecycle?.has('approval_requested')) {
      this.deps.lifecycle.emit('approval_requested', { ...jobEvent(route, job), approvers: record.approvers, expiresAt: record.expiresAt, via: record.via });
    }
    return record;
  }

  /**
   * A press (chat button or dashboard): only an allowed approver changes a pending approval, and only once. A chat
   * press counts only on the draft's own message (`on`: the message the button was pressed on, Source.pressOf).
   */
  decide(jobId: string, decision: 'approve' | 'deny', presser: Presser, on?: MessageRef): Promise<DecisionResult> {
    const before = this.deciding.get(jobId) ?? Promise.resolve(undefined);
    const next = before.then(() => this.decideNow(jobId, decision, presser, on));
    const settled = next.catch(() => ({ result: 'unknown' }) as const);
    this.deciding.set(jobId, settled);
    void settled.then(() => {
      if (this.deciding.get(jobId) === settled) this.deciding.delete(jobId);
    });
    return next;
  }

  private async decideNow(jobId: string, decision: 'approve' | 'deny', presser: Presser, on: MessageRef | undefined): Promise<DecisionResult> {
    const { logger, lifecycle } = this.deps;
    const record = await this.records.get(jobId);
    if (!record) return { result: 'unknown' };
    const who = presserText(presser);
    const meta = { route: record.route, delivery_id: record.deliveryId };
    if (!isApprover(record.approvers, presser)) {
      logger.warn(`${record.deliveryId} on route '${record.route}': ${who} pressed ${decision} but is not an approver; nothing changed`, meta);
      return { result: 'not_allowed', record };
    }
    if (!pressedOnDraft(record, presser, on)) {
      const where = on ? `${on.platform} chat ${on.chat} message ${on.messageId}` : 'a message it does not name';
      const draft = record.chat === undefined ? 'no chat (the dashboard only)' : `${record.platform ?? record.via} chat ${record.chat}`;
      logger.warn(
        `${record.deliveryId} on route '${record.route}': ${who} pressed ${decision} on ${where}, not on the draft (posted to ${draft}); nothing changed`,
        meta,
      );
      return { result: 'not_allowed', record };
    }
    if (record.status !== 'pending' || Date.now() >= record.expiresAt) {
      logger.info(
        `${record.deliveryId} on route '${record.route}': ${who} pressed ${decision}, but the approval is ${record.status === 'pending' ? 'expired' : record.status} already`,
        meta,
      );
      return { result: 'already', record };
    }
    const decided: ApprovalRecord = { ...record, status: decision === 'approve' ? 'approved' : 'denied', by: who, decidedAt: Date.now() };
    await this.records.put(decided);
    logger.info(`${record.deliveryId} on route '${record.route}': ${decided.status} by ${who}`, meta);
    // The held job goes now instead of at its next recheck (a store without makeDue: within recheckMs).
    await this.deps.jobs.makeDue?.(jobId).catch((err: unknown) => {
      logger.warn(
        `${record.deliveryId} on route '${record.route}': ${decided.status}, but the held job could not be woken (it goes at its next recheck): ${String(err)}`,
        meta,
      );
    });
    // The draft in the chat shows the decision instead of its buttons (not awaited: the press is answered now).
    void editDecidedDraft(this.deps, decided);
    const name = decision === 'approve' ? 'approved' : 'denied';
    if (lifecycle?.has(name)) lifecycle.emit(name, { jobId, route: record.route, deliveryId: record.deliveryId, by: who });
    return { result: decided.status as 'approved' | 'denied', record: decided };
  }

  /** Jobs held for approval now (for the dashboard): pending jobs past their agent step whose record is pending. */
  async pending(limit = 200): Promise<Array<{ job: Job; record: ApprovalRecord }>> {
    const jobs = await this.deps.jobs.list({ status: 'pending', limit });
    const held: Array<{ job: Job; record: ApprovalRecord }> = [];
    for (const job of jobs) {
      if (job.step !== 'deliver' || job.answer === undefined) continue;
      const record = await this.records.get(job.id);
      if (record?.status === 'pending') held.push({ job, record });
    }
    return held;
  }
}
