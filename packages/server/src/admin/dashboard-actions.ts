// The delivery page's actions table: each call the run's agent made through the route's actions, in
// order, with its outcome (done, failed, refused), attempts, and the receipt or the reason, as the worker stored
// them with the run's usage (`usage.actions`). Every value is escaped.
import type { Job } from '@hookwise/core';
import { esc } from './html-escape';

interface ActionShown {
  index: number;
  action: string;
  status: string;
  attempts: number;
  reason?: string;
  receipt?: unknown;
}

/** The table, or nothing for a job whose run made no action call. */
export function actionsSection(job: Pick<Job, 'usage'>): string {
  const actions = (job.usage as { actions?: ActionShown[] } | undefined)?.actions ?? [];
  if (!actions.length) return '';
  const rows = actions
    .map((a) => {
      const detail = a.status === 'done' ? (a.receipt === undefined ? '' : JSON.stringify(a.receipt)) : (a.reason ?? '');
      return `<tr class="action outcome-${esc(a.status)}"><td class="num">${esc(a.index)}</td><td>${esc(a.action)}</td><td><span class="badge status-${esc(a.status)}">${esc(a.status)}</span></td><td class="num">${esc(a.attempts)}</td><td>${esc(detail)}</td></tr>`;
    })
    .join('');
  return `<h2>Actions</h2>
<table id="actions"><thead><tr><th>#</th><th>action</th><th>outcome</th><th>attempts</th><th>receipt or reason</th></tr></thead><tbody>${rows}</tbody></table>`;
}
