// The dashboard's usage panel: per route (and per profile, when several are shown together), what the budgets count
// now against their limits and what the period's stored jobs came to.
import { againstLimit, tokenCount, type UsageReport } from '@hookwise/gateway';
import { esc, time } from './html-escape';

/** The usage panel's input: the report, or why the store could not give it (the rest of the page is shown all the same). */
export type UsageOrProblem = ShownUsage | { problem: string };

/** A usage report whose rows may name their profile (the admin data's merge over profiles adds it). */
export type ShownUsage = Omit<UsageReport, 'routes'> & { routes: Array<UsageReport['routes'][number] & { profile?: string }> };

/** One row per route: the budget counters against the limits, then the sums over the period's stored jobs. */
export function usageRows(input: UsageOrProblem, showProfile = false): string {
  const columns = showProfile ? 10 : 9;
  if ('problem' in input) return `<tr class="empty"><td colspan="${columns}" class="error">Usage not available: ${esc(input.problem)}</td></tr>`;
  const report = input;
  if (!report.routes.length) return '<tr class="empty"><td colspan="${columns}">No routes.</td></tr>';
  const rows = report.routes.map((r) => {
    const s = r.stored;
    const ended = [
      `${s.delivered} delivered`,
      s.silent ? `${s.silent} silent` : '',
      s.skipped ? `${s.skipped} skipped` : '',
      s.dead ? `${s.dead} dead` : '',
      s.open ? `${s.open} open` : '',
    ]
      .filter(Boolean)
      .join(', ');
    return `<tr data-route="${esc(r.route)}"${showProfile ? ` data-profile="${esc(r.profile ?? '')}"` : ''}>
${showProfile ? `<td class="profile">${esc(r.profile ?? '')}</td>` : ''}<td>${esc(r.route)}</td>
<td class="num runs-this-hour">${esc(againstLimit(r.runsThisHour, r.budget?.runsPerHour))}</td>
<td class="num tokens-today">${esc(againstLimit(r.tokensToday, r.budget?.tokensPerDay))}</td>
<td>${r.budget ? esc(r.budget.whenExceeded) : '–'}</td>
<td class="num events">${esc(s.events)}</td>
<td class="num agent-runs">${esc(s.agentRuns)}</td>
<td>${esc(ended)}</td>
<td class="num tokens-in">${esc(tokenCount(s.inputTokens))}${s.cachedInputTokens ? ` <small>(${esc(tokenCount(s.cachedInputTokens))} cached)</small>` : ''}</td>
<td class="num tokens-out">${esc(tokenCount(s.outputTokens))}</td>
</tr>`;
  });
  if (report.all || report.globalBudget)
    rows.push(`<tr class="all-routes" data-route="*">
${showProfile ? '<td></td>' : ''}<td>all routes (agent.budget)</td>
<td class="num runs-this-hour">${esc(againstLimit(report.all?.runsThisHour, report.globalBudget?.runsPerHour))}</td>
<td class="num tokens-today">${esc(againstLimit(report.all?.tokensToday, report.globalBudget?.tokensPerDay))}</td>
<td>${report.globalBudget ? esc(report.globalBudget.whenExceeded) : '–'}</td>
<td colspan="5"></td>
</tr>`);
  return rows.join('\n');
}

/** The usage panel: per route, what the budgets count now and what the last day's jobs came to. */
export function usageSection(input: UsageOrProblem, showProfile = false): string {
  const scope =
    'problem' in input
      ? ''
      : `; jobs received since ${time(input.since)}${input.complete ? '' : `, the newest ${esc(input.jobsRead)} only`}${input.counted ? '' : '; the store keeps no budget counters'}`;
  return `<section class="usage">
<h2>Usage per route <small>(runs this clock hour and tokens this UTC day against the route's budget${scope})</small></h2>
<table id="usage"><thead><tr>${showProfile ? '<th>profile</th>' : ''}<th>route</th><th>runs this hour</th><th>tokens today</th><th>over budget</th><th>events</th><th>agent runs</th><th>ended</th><th>input tokens</th><th>output tokens</th></tr></thead>
<tbody id="usage-rows">${usageRows(input, showProfile)}</tbody></table>
</section>`;
}
