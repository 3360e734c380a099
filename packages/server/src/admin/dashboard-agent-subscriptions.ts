// The dashboard's section on the subscriptions agent runs made, for the operator to review before a sender gets
// their URL.
import type { AgentSubscription } from './admin-data';
import { esc } from './html-escape';

/** The subscriptions agent runs made: who made them and what they would do, so the operator reviews them. */
export function agentSubscriptionsSection(subs: AgentSubscription[]): string {
  const rows = subs.map((s) => {
    const deliver = typeof s.deliver === 'string' ? s.deliver : JSON.stringify(s.deliver);
    const extra = Object.entries(s.deliverExtra).map(([key, value]) => `${key}=${String(value)}`);
    return `<tr data-subscription="${esc(s.name)}">
<td>${esc(s.name)}</td>
<td>${esc(s.createdBy.route)} <small>(job ${esc(s.createdBy.job)})</small></td>
<td>${s.createdBy.adopted_at ? `kept ${esc(s.createdBy.adopted_at)}` : '<strong>not reviewed</strong>'}</td>
<td>${esc(deliver)}${extra.length ? ` <small>${esc(extra.join(', '))}</small>` : ''}</td>
<td><pre>${esc(s.prompt ?? '(the payload as JSON)')}</pre></td>
<td>${esc(s.createdAt ?? '')}</td>
</tr>`;
  });
  return `<section class="agent-subscriptions">
<h2>Subscriptions made by agent runs <small>(check them before giving a sender the URL: <code>hookwise webhook subscribe &lt;name&gt;</code> lists what it keeps)</small></h2>
<table id="agent-subscriptions"><thead><tr><th>name</th><th>made by route</th><th>review</th><th>deliver</th><th>prompt</th><th>created</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>
</section>`;
}
