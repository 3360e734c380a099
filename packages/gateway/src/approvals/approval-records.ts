// The record of one job's approval, kept in the store's memos (Store.memos, durable with SQLite and
// Redis) under the job's id: who may answer, until when, where the draft went, and what was decided by whom. The
// job itself waits in the queue with a hold (jobs/approval-gate.ts); this record is what a button press changes.
import type { MemoKV, MessageRef } from '@hookwise/core';
import type { ApprovalVia } from '../config/approval-schema';

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

export interface ApprovalRecord {
  jobId: string;
  route: string;
  deliveryId: string;
  status: ApprovalStatus;
  approvers: string[];
  /** Epoch ms: asked, and when an unanswered draft ends as expired. */
  requestedAt: number;
  expiresAt: number;
  via?: ApprovalVia;
  /** The platform of the draft (its deliverer's approval facet: `telegram`, `slack`, ...): presses count only there. */
  platform?: string;
  /** Where the draft was posted (chat or channel, message id), when it was. */
  chat?: string;
  messageId?: string;
  /** Who decided ("telegram:12345 (alice)", "dashboard"), and when. */
  by?: string;
  decidedAt?: number;
}

/** Memo keys start with their user's name; the memos are shared by every plugin on the store. */
const KEY_PREFIX = 'approval:';
/** A decided record is kept this long after its expiry for `deliveries show` and the dashboard, then forgotten. */
const KEEP_AFTER_MS = 7 * 24 * 3600_000;

export class ApprovalRecords {
  constructor(private readonly memos: MemoKV) {}

  async get(jobId: string): Promise<ApprovalRecord | undefined> {
    const text = await this.memos.get(KEY_PREFIX + jobId);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as ApprovalRecord;
    } catch {
      return undefined; // not ours to fix: a record that does not parse counts as none (the draft is asked again)
    }
  }

  async put(record: ApprovalRecord): Promise<void> {
    const ttlMs = Math.max(record.expiresAt - Date.now(), 0) + KEEP_AFTER_MS;
    await this.memos.set(KEY_PREFIX + record.jobId, JSON.stringify(record), ttlMs);
  }
}

/** Who pressed, as the platforms tell it (ApprovalPress.presser), or the dashboard's operator. */
export interface Presser {
  /** The source's platform name (`telegram`, `slack`, `discord`, ...) or `dashboard`. */
  platform: string;
  id: string;
  username?: string;
}

/** "telegram:12345 (alice)": how a decision's author is recorded and logged. */
export function presserText(p: Presser): string {
  if (p.platform === 'dashboard') return p.username ? `dashboard (${p.username})` : 'dashboard';
  return `${p.platform}:${p.id}${p.username ? ` (${p.username})` : ''}`;
}

/** An approvers entry pinned to a platform: `<platform>:<id or username>` (`telegram:123`, `slack:U0123`). */
export const PINNED_APPROVER = /^([a-z][a-z0-9_]*):([^:\s]+)$/;

/**
 * Whether `approvers` lists the presser: an entry is `<platform>:<id>` or `<platform>:<username>` (with or without
 * @, any case), on the presser's platform. An entry without a platform matches nobody (the config refuses it): a
 * name alone could be taken on any platform. The dashboard's signed-in operator is always allowed: the admin
 * token already is the strongest credential of the gateway.
 */
export function isApprover(approvers: readonly string[], p: Presser): boolean {
  if (p.platform === 'dashboard') return true;
  const username = p.username?.replace(/^@/, '').toLowerCase();
  return approvers.some((entry) => {
    const pinned = PINNED_APPROVER.exec(entry);
    if (!pinned || pinned[1] !== p.platform) return false;
    const who = pinned[2].replace(/^@/, '');
    return who === p.id || (username !== undefined && who.toLowerCase() === username);
  });
}

/**
 * Whether a chat press was made on the record's draft: the platform it was posted on, its chat, and its message
 * (when the deliverer said which). A press on another platform, in another chat, on another message (a copy of the
 * buttons, a forged interaction of the same bot) or naming no message counts for nothing.
 */
export function pressedOnDraft(record: ApprovalRecord, p: Presser, message: MessageRef | undefined): boolean {
  if (p.platform === 'dashboard') return true;
  const platform = record.platform ?? record.via;
  if (!platform || record.chat === undefined || !message) return false;
  if (p.platform !== platform || message.platform !== platform || message.chat !== record.chat) return false;
  return record.messageId === undefined || message.messageId === record.messageId;
}
