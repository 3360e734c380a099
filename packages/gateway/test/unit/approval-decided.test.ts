// The edit of a decided approval draft: the text it gets, and that a failed edit is logged without failing anything.
import { Writable } from 'node:stream';
import { HookwiseError, type Deliverer } from '@hookwise/core';
import { createLogger } from '../../src/observe/logger';
import { decidedText, editDecidedDraft } from '../../src/approvals/approval-decided';
import type { ApprovalRecord } from '../../src/approvals/approval-records';

const record: ApprovalRecord = {
  jobId: 'job-1',
  route: 'held',
  deliveryId: 'd-1',
  status: 'approved',
  approvers: ['alice'],
  requestedAt: 0,
  expiresAt: 1e13,
  via: 'telegram',
  chat: '-200',
  messageId: '101',
  by: 'telegram:111 (alice)',
  decidedAt: Date.UTC(2026, 0, 2, 3, 4, 5),
};

function setup(decided: NonNullable<NonNullable<Deliverer['approval']>['decided']>) {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', format: 'json', stream: new Writable({ write: (c, _e, done) => (lines.push(String(c)), done()) }) });
  const deliverer = { approval: { platform: 'telegram', postDraft: jest.fn(), decided } } as unknown as Deliverer;
  const deps = { jobs: { get: async () => ({ answer: 'Ship it?' }) as never }, logger, delivererById: () => deliverer };
  return { deps, lines };
}

describe('a decided draft', () => {
  it('is edited to the decision, who made it and when, then the answer', async () => {
    const decided = jest.fn(async () => undefined);
    const { deps } = setup(decided);
    await editDecidedDraft(deps, record);
    expect(decided).toHaveBeenCalledWith(
      { chat: '-200', messageId: '101' },
      'Approved by telegram:111 (alice) at 2026-01-02T03:04:05.000Z: route held, event d-1; the answer is delivered.\n\nShip it?',
      { signal: expect.any(AbortSignal) },
    );
    expect(decidedText({ ...record, status: 'denied' }, undefined)).toBe(
      'Denied by telegram:111 (alice) at 2026-01-02T03:04:05.000Z: route held, event d-1; nothing is delivered.',
    );
  });

  it('logs an edit that fails, and never rejects', async () => {
    const { deps, lines } = setup(async () => {
      throw new HookwiseError('HW_E_DELIVERY', 'telegram (Telegram): message to edit not found', { retryable: false });
    });
    await expect(editDecidedDraft(deps, record)).resolves.toBeUndefined();
    expect(lines.join('')).toContain("d-1 on route 'held': approved, but the draft in telegram chat -200 could not be edited");
    expect(lines.join('')).toContain('message to edit not found');
  });

  it('edits nothing for a draft never posted (the dashboard only) or a deliverer without the edit', async () => {
    const decided = jest.fn(async () => undefined);
    const { deps } = setup(decided);
    await editDecidedDraft(deps, { ...record, via: undefined, chat: undefined, messageId: undefined });
    expect(decided).not.toHaveBeenCalled();
    const without = { ...deps, delivererById: () => ({ approval: { platform: 'x', postDraft: jest.fn() } }) as unknown as Deliverer };
    await expect(editDecidedDraft(without, record)).resolves.toBeUndefined();
  });
});
