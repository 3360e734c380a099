// The dashboard's trial pages: the list of kept trials (`hookwise routes try`) and one trial with each event's old
// and new answer side by side, the lines that differ marked (<del> on the old side, <ins> on the new, which
// browsers mark even without the style sheet), and what changed for the event in one phrase.
import { esc } from './html-escape';
import { lineDiff } from './line-diff';
import type { TrialEventView, TrialSideView, TrialView } from './trial-files';

const CHANGE_TEXT: Record<string, string> = {
  same: 'same answer',
  changed: 'answer changed',
  'filtered-out-now': 'filtered out now',
  'passes-now': 'now passes the filter',
  'both-filtered': 'filtered out before and now',
  error: 'the trial run failed',
};

const trialPath = (id: string): string => `/ui/trials/${encodeURIComponent(id)}`;
const percent = (rate: number): string => `${Math.round(rate * 100)}%`;
const tokens = (count: number | undefined): string => (count === undefined ? '–' : count.toLocaleString('en-US'));
const seconds = (ms: number | undefined): string => (ms === undefined ? '–' : `${(ms / 1000).toFixed(1)} s`);

export function trialsListPage(trials: TrialView[]): string {
  const rows = trials
    .map(
      (t) => `<tr data-trial-id="${esc(t.id)}">
<td class="id"><a href="${trialPath(t.id)}">${esc(t.id)}</a></td><td>${esc(t.route)}</td><td>${esc(t.createdAt)}</td>
<td>${esc(Object.keys(t.change).join(', '))}</td><td class="events">${t.totals.events}</td><td class="runs">${t.totals.runs}</td>
<td class="changed">${t.events.filter((e) => e.change === 'changed').length}</td><td class="filtered">${t.totals.filteredOutNow}</td>
<td class="tokens">${tokens(t.totals.tokens.old)} → ${tokens(t.totals.tokens.new)}</td><td>${t.stopped ? 'stopped' : ''}</td></tr>`,
    )
    .join('\n');
  return `<h1>Trials</h1>
<p>Trial runs of a changed route on stored events (<code>hookwise routes try</code>); nothing of them was delivered.</p>
${
  trials.length
    ? `<table class="trials"><thead><tr><th>Trial</th><th>Route</th><th>Created</th><th>Change</th><th>Events</th><th>Runs</th><th>Changed</th><th>Filtered out now</th><th>Tokens</th><th></th></tr></thead>
<tbody id="trial-rows">${rows}</tbody></table>`
    : '<p class="empty">No trials yet: run <code>hookwise routes try &lt;route&gt; --prompt ...</code>.</p>'
}`;
}

function sideHead(side: TrialSideView, which: 'old' | 'new'): string {
  const state =
    side.filter === 'filtered' ? 'filtered out' : side.error ? 'failed' : side.silent ? 'silent' : side.answer === undefined ? 'no answer' : 'answer';
  return `<div class="side-head"><strong>${which === 'old' ? 'Old' : 'New'}</strong>: <span class="state">${esc(state)}</span> · ${tokens(side.tokens)} tokens · ${seconds(side.durationMs)}${side.status ? ` · ${esc(side.status)}` : ''}</div>`;
}

/** A side's body: the answer's lines, those not on the other side marked; or why there is no answer. */
function sideBody(side: TrialSideView, lines: string[] | undefined): string {
  if (side.filter === 'filtered') return `<p class="filtered">${esc(side.filterReason ?? 'the filter drops this event')}</p>`;
  if (lines === undefined) return `<p class="error">${esc(side.error ?? 'no answer')}</p>`;
  return `<pre class="answer">${lines.join('\n')}</pre>`;
}

function eventSection(event: TrialEventView): string {
  let oldLines: string[] | undefined;
  let newLines: string[] | undefined;
  if (event.old.filter === 'passed' && event.old.answer !== undefined) oldLines = [];
  if (event.new.filter === 'passed' && event.new.answer !== undefined) newLines = [];
  for (const line of lineDiff(event.old.answer ?? '', event.new.answer ?? '')) {
    if (line.kind !== 'added') oldLines?.push(line.kind === 'removed' ? `<del>${esc(line.text)}</del>` : esc(line.text));
    if (line.kind !== 'removed') newLines?.push(line.kind === 'added' ? `<ins>${esc(line.text)}</ins>` : esc(line.text));
  }
  return `<section class="trial-event" data-delivery-id="${esc(event.deliveryId)}" data-change="${esc(event.change)}">
<h2><a href="/ui/deliveries/${encodeURIComponent(event.deliveryId)}">${esc(event.deliveryId)}</a> <span class="event">${esc(event.event || '–')}</span> <span class="change">${esc(CHANGE_TEXT[event.change] ?? event.change)}</span></h2>
<div class="side-by-side">
<div class="side old">${sideHead(event.old, 'old')}${sideBody(event.old, oldLines)}</div>
<div class="side new">${sideHead(event.new, 'new')}${sideBody(event.new, newLines)}</div>
</div>
</section>`;
}

export function trialPage(trial: TrialView): string {
  const t = trial.totals;
  return `<h1>Trial ${esc(trial.id)}</h1>
<dl class="summary">
<dt>Route</dt><dd id="trial-route">${esc(trial.route)}</dd>
<dt>Created</dt><dd>${esc(trial.createdAt)}</dd>
<dt>Change</dt><dd id="trial-change"><code>${esc(JSON.stringify(trial.change))}</code></dd>
<dt>Totals</dt><dd id="trial-totals">${t.events} events, ${t.runs} runs, silent ${percent(t.silentRate.old)} before / ${percent(t.silentRate.new)} now, tokens ${tokens(t.tokens.old)} before / ${tokens(t.tokens.new)} now, ${t.filteredOutNow} filtered out now, ${t.passesNow} now pass</dd>
${trial.stopped ? `<dt>Stopped</dt><dd id="trial-stopped">${esc(trial.stopped.reason)} (${trial.stopped.notRun.length} not run)</dd>` : ''}
</dl>
<p>Nothing of this trial was delivered. <a href="/ui/trials">All trials</a></p>
${trial.events.map(eventSection).join('\n')}`;
}
