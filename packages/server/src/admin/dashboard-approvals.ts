// The dashboard's approvals page: each answer a route holds for an approver, with its draft, who may
// approve, until when, and Approve / Deny buttons (dashboard.js posts them with the page's CSRF token).
import { esc } from './html-escape';

export interface HeldView {
  /** The profile whose job it is. */
  profile: string;
  jobId: string;
  deliveryId: string;
  route: string;
  event: string;
  answer: string;
  approvers: string[];
  requestedAt: number;
  expiresAt: number;
  via?: string;
}

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function approvalsPage(held: HeldView[]): string {
  const items = held
    .map(
      (h) => `<section class="approval" data-job-id="${esc(h.jobId)}" data-delivery-id="${esc(h.deliveryId)}">
<h2><a href="/ui/deliveries/${encodeURIComponent(h.deliveryId)}">${esc(h.deliveryId)}</a> <span class="route">${esc(h.route)}</span> <span class="event">${esc(h.event || '–')}</span></h2>
<p class="muted">asked ${esc(iso(h.requestedAt))}, expires ${esc(iso(h.expiresAt))}; approvers ${esc(h.approvers.join(', '))}${h.via ? `; draft in ${esc(h.via)}` : ''}</p>
<pre class="answer">${esc(h.answer)}</pre>
<p><button type="button" class="approve" data-approval="${esc(h.jobId)}" data-decision="approve">Approve</button>
<button type="button" class="deny" data-approval="${esc(h.jobId)}" data-decision="deny">Deny</button></p>
</section>`,
    )
    .join('\n');
  return `<h1>Approvals</h1>
<p>Answers held by routes with <code>approval:</code>; Approve delivers one, Deny ends it with nothing delivered. <span id="action-result" role="status"></span></p>
${held.length ? `<div id="approvals">${items}</div>` : '<p class="empty" id="approvals-empty">No answer waits for approval.</p>'}`;
}
