// The dashboard's HTML, rendered on the server: pages, the fragments the page script refreshes (event rows, the
// stats panel) and the small inline SVG charts. Every value from a job or a request is escaped here.
import type { Job, JobStatus, JobSummary } from '@hookwise/core';
import {
  tokensOf,
  type JobActivity,
  type MinuteCounts,
  type RequestActivity,
  coalescedText,
  eventCount,
  jobOutcome,
  outcomeText,
  sandboxText,
  tokenCount,
  usageText,
  waitingNote,
} from '@hookwise/gateway';
import { actionsSection } from './dashboard-actions';
import { esc, time } from './html-escape';
import { usageSection, type UsageOrProblem } from './dashboard-usage';
import type { AgentSubscription } from './admin-data';
import { agentSubscriptionsSection } from './dashboard-agent-subscriptions';

export interface QueueDepth {
  pending?: number;
  running: number;
  dead?: number;
}

export interface ListFilters {
  status?: JobStatus;
  route?: string;
  event?: string;
}

const STATUSES: JobStatus[] = ['pending', 'running', 'done', 'dead'];

function duration(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

function badge(status: string): string {
  return `<span class="badge status-${esc(status)}">${esc(status)}</span>`;
}

export const deliveryPath = (job: Pick<Job, 'deliveryId'>): string => `/ui/deliveries/${encodeURIComponent(job.deliveryId)}`;

export function page(options: { title: string; csrf?: string; body: string; kind: string; signedIn?: boolean }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(options.title)} · Hookwise</title>
${options.csrf ? `<meta name="hookwise-csrf" content="${esc(options.csrf)}">` : ''}
<link rel="stylesheet" href="/ui/assets/dashboard.css">
<script src="/ui/assets/dashboard.js" defer></script>
</head>
<body data-page="${esc(options.kind)}">
<header class="top">
<a class="brand" href="/ui">Hookwise</a>
<nav><a href="/ui">Events</a><a href="/ui?status=dead">Dead letters</a><a href="/ui/trials">Trials</a><a href="/ui/approvals">Approvals</a></nav>
${options.signedIn ? '<form method="post" action="/ui/logout" class="logout"><button type="submit">Sign out</button></form>' : ''}
</header>
<main>
${options.body}
</main>
</body>
</html>
`;
}

/** The status badge, and beside a done job that was not delivered its outcome (silent, skipped), beside a held one "held". */
function statusBadges(job: JobSummary): string {
  const outcome = jobOutcome(job);
  if (outcome && outcome !== 'delivered')
    return `${badge(job.status)} <span class="badge outcome-${esc(outcome)}" title="${esc(outcomeText(job))}">${esc(outcome)}</span>`;
  const waiting = waitingNote(job);
  return waiting ? `${badge(job.status)} <span class="badge outcome-held" title="${esc(waiting)}">held</span>` : badge(job.status);
}

export function eventRows(jobs: Array<JobSummary & { profile?: string }>, showProfile = false): string {
  if (!jobs.length) return `<tr class="empty"><td colspan="${showProfile ? 11 : 10}">No events match.</td></tr>`;
  return jobs
    .map(
      (
        job,
      ) => `<tr data-job-id="${esc(job.id)}" data-delivery-id="${esc(job.deliveryId)}" data-status="${esc(job.status)}" data-outcome="${esc(jobOutcome(job) ?? '')}">
<td><a href="${esc(deliveryPath(job))}">${esc(job.deliveryId)}</a></td>
${showProfile ? `<td class="profile">${esc(job.profile ?? '')}</td>` : ''}<td>${esc(job.route)}</td>
<td>${esc(job.event || '–')}</td>
<td>${statusBadges(job)}</td>
<td>${esc(job.step)}</td>
<td class="num">${esc(job.attempts)}</td>
<td class="num events">${esc(eventCount(job))}</td>
<td class="num tokens" title="${esc(usageText(job.usage) ?? 'no usage reported')}">${usageText(job.usage) ? esc(tokenCount(tokensOf(job.usage))) : '–'}</td>
<td>${time(job.receivedAt)}</td>
${job.errors.length ? `<td class="error">${esc(job.errors.at(-1)?.message)}</td>` : `<td class="note muted">${esc(job.note ?? '')}</td>`}
</tr>`,
    )
    .join('\n');
}

interface Series {
  name: string;
  className: string;
  values: number[];
}

/** Stacked bars, one per minute, oldest on the left; the title says what the tallest bar is worth. */
function barChart(title: string, series: Series[], unit = ''): string {
  const width = 300;
  const height = 64;
  const count = series[0]?.values.length ?? 0;
  const totals = Array.from({ length: count }, (_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const peak = Math.max(0, ...totals);
  // An empty chart still needs a scale; its caption says 0.
  const max = peak > 0 ? peak : 1;
  const bar = count ? width / count : width;
  const rects: string[] = [];
  for (let i = 0; i < count; i += 1) {
    let y = height;
    for (const s of series) {
      const value = s.values[i] ?? 0;
      if (value <= 0) continue;
      const h = Math.max(1, (value / max) * (height - 2));
      y -= h;
      rects.push(
        `<rect class="${s.className}" x="${(i * bar + 0.5).toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(1, bar - 1).toFixed(1)}" height="${h.toFixed(1)}"><title>${esc(s.name)}: ${esc(Math.round(value * 100) / 100)}${esc(unit)}</title></rect>`,
      );
    }
  }
  const legend = series.map((s) => `<span class="key ${s.className}"></span>${esc(s.name)}`).join(' ');
  return `<figure class="chart">
<figcaption>${esc(title)} <small>(peak ${esc(Math.round(peak * 100) / 100)}${esc(unit)})</small></figcaption>
<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${esc(title)}">
<line class="axis" x1="0" y1="${height - 0.5}" x2="${width}" y2="${height - 0.5}"></line>
${rects.join('\n')}
</svg>
<div class="legend">${legend}</div>
</figure>`;
}

export function statsPanel(queue: QueueDepth, minutes: MinuteCounts[] | undefined): string {
  const box = (label: string, value: number | undefined, className: string) =>
    `<div class="count ${className}"><span class="value" data-count="${className}">${value === undefined ? '?' : esc(value)}</span><span class="label">${esc(label)}</span></div>`;
  const counts = `<div class="counts">${box('pending', queue.pending, 'pending')}${box('running', queue.running, 'running')}${box('dead letters', queue.dead, 'dead')}</div>`;
  if (!minutes) return counts;
  const charts = [
    barChart('Webhooks per minute, last 30 min', [
      { name: 'accepted', className: 'ok', values: minutes.map((m) => m.accepted) },
      { name: 'refused', className: 'bad', values: minutes.map((m) => m.refused) },
    ]),
    barChart('Deliveries per minute', [
      { name: 'delivered', className: 'ok', values: minutes.map((m) => m.delivered) },
      { name: 'failed attempts', className: 'bad', values: minutes.map((m) => m.failed) },
    ]),
    barChart(
      'Agent run time, average per minute',
      [{ name: 'average run', className: 'agent', values: minutes.map((m) => (m.agentRuns ? m.agentMsTotal / m.agentRuns : 0)) }],
      ' ms',
    ),
  ];
  return `${counts}<div class="charts">${charts.join('\n')}</div>`;
}

function options(values: string[], selected: string | undefined, any: string): string {
  return [
    `<option value="">${esc(any)}</option>`,
    ...values.map((v) => `<option value="${esc(v)}"${v === selected ? ' selected' : ''}>${esc(v)}</option>`),
  ].join('');
}

export function listPage(input: {
  jobs: Array<JobSummary & { profile?: string }>;
  filters: ListFilters & { profile?: string };
  /** The hosted profiles, when there are any besides the default one: a profile column and filter are shown. */
  profiles?: string[];
  routes: string[];
  queue: QueueDepth;
  minutes?: MinuteCounts[];
  requests?: RequestActivity[];
  usage?: UsageOrProblem;
  agentSubscriptions?: AgentSubscription[];
}): string {
  const { filters } = input;
  const dead = filters.status === 'dead';
  const refused = input.requests
    ? `<section class="refused">
<h2>Refused, duplicate and ignored requests <small>(this gateway, since it started)</small></h2>
<table><thead><tr><th>time</th><th>route</th><th>outcome</th><th>status</th><th>reason</th><th>delivery id</th></tr></thead>
<tbody id="request-rows">${requestRows(input.requests)}</tbody></table>
</section>`
    : '';
  return `<section id="stats" class="stats">${statsPanel(input.queue, input.minutes)}</section>
<h1>${dead ? 'Dead letters' : 'Events'}</h1>
<form id="filters" class="filters" method="get" action="/ui">
${input.profiles ? `<label>Profile <select name="profile">${options(input.profiles, filters.profile, 'all profiles')}</select></label>` : ''}
<label>Route <select name="route">${options(input.routes, filters.route, 'all routes')}</select></label>
<label>Status <select name="status">${options(STATUSES, filters.status, 'any status')}</select></label>
<label>Event <input name="event" value="${esc(filters.event ?? '')}" placeholder="e.g. push"></label>
<button type="submit">Filter</button>
<span id="live" class="live" title="Updates as events arrive">live</span>
</form>
${dead ? `<p class="actions"><button type="button" id="retry-dead" data-route="${esc(filters.route ?? '')}">Retry ${filters.route ? `the dead letters of ${esc(filters.route)}` : 'all dead letters'}</button> <span id="action-result" role="status"></span></p>` : ''}
<table id="events" class="events">
<thead><tr><th>delivery id</th>${input.profiles ? '<th>profile</th>' : ''}<th>route</th><th>event</th><th>status</th><th>step</th><th>attempts</th><th>events</th><th>tokens</th><th>received</th><th>last error / note</th></tr></thead>
<tbody id="event-rows">
${eventRows(input.jobs, input.profiles !== undefined)}
</tbody>
</table>
${input.usage ? usageSection(input.usage, input.profiles !== undefined) : ''}
${input.agentSubscriptions?.length ? agentSubscriptionsSection(input.agentSubscriptions) : ''}
${refused}`;
}

export function requestRows(requests: RequestActivity[]): string {
  if (!requests.length) return '<tr class="empty"><td colspan="6">None.</td></tr>';
  return requests
    .slice(0, 50)
    .map(
      (r) =>
        `<tr><td>${time(r.at)}</td><td>${esc(r.route)}</td><td>${esc(r.outcome)}</td><td class="num">${esc(r.status)}</td><td>${esc(r.reason ?? '')}${r.source ? ` (${esc(r.source)})` : ''}</td><td>${esc(r.deliveryId ?? '')}</td></tr>`,
    )
    .join('\n');
}

function pre(value: string | undefined, empty: string, id: string): string {
  return value === undefined ? `<p class="muted" id="${id}">${esc(empty)}</p>` : `<pre id="${id}">${esc(value)}</pre>`;
}

function json(value: unknown, limit = 100_000): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > limit ? `${text.slice(0, limit)}\n… (${text.length - limit} more characters)` : text;
}

function attemptsTable(job: Job, activity: JobActivity | undefined): string {
  if (activity?.attempts.length) {
    const rows = activity.attempts
      .map((a) => {
        const then = a.then === undefined ? '' : 'deadLetter' in a.then ? 'dead letter' : `retry in ${duration(a.then.retryInMs)}`;
        const where = a.step === 'agent' ? (a.runner ?? '') : (a.destination ?? '');
        const tokens = a.usage ? ` (${a.usage.inputTokens ?? '?'} in / ${a.usage.outputTokens ?? '?'} out tokens)` : '';
        return `<tr class="attempt outcome-${esc(a.outcome)}"><td>${esc(a.step)}</td><td class="num">${esc(a.attempt)}</td><td>${esc(where)}</td><td>${time(a.startedAt)}</td><td class="num">${esc(duration(a.durationMs))}</td><td>${badge(a.outcome)}${esc(tokens)}</td><td class="error">${esc(a.error ?? '')}</td><td>${esc(then)}</td></tr>`;
      })
      .join('\n');
    return `<table id="attempts"><thead><tr><th>step</th><th>attempt</th><th>runner / destination</th><th>started</th><th>took</th><th>outcome</th><th>error</th><th>then</th></tr></thead><tbody>${rows}</tbody></table>`;
  }
  if (job.errors.length) {
    const rows = job.errors
      .map(
        (e) =>
          `<tr><td>${esc(e.step)}</td><td class="num">${esc(e.attempt)}</td><td>${time(e.at)}</td><td class="error">${esc(e.message)}</td><td>${e.retryable ? 'yes' : 'no'}</td></tr>`,
      )
      .join('\n');
    return `<p class="muted">Timings are kept for jobs this gateway ran since it started; the store keeps each failed attempt:</p><table id="attempts"><thead><tr><th>step</th><th>attempt</th><th>failed at</th><th>error</th><th>retryable</th></tr></thead><tbody>${rows}</tbody></table>`;
  }
  return '<p class="muted" id="attempts">No attempt recorded by this gateway yet.</p>';
}

function receiptSection(job: Job): string {
  const outcome = jobOutcome(job);
  if (outcome === 'silent' || outcome === 'skipped') return `<p class="muted" id="receipt">Nothing delivered: the job ended ${esc(outcome)}.</p>`;
  return job.receipt === undefined ? '<p class="muted" id="receipt">Not delivered yet.</p>' : `<pre id="receipt">${esc(json(job.receipt))}</pre>`;
}

export function detailPage(job: Job, activity: JobActivity | undefined, conversation = ''): string {
  const headers = activity?.headers
    ? `<table id="headers" class="headers"><tbody>${activity.headers.map(([name, value]) => `<tr><th>${esc(name)}</th><td>${esc(value)}</td></tr>`).join('')}</tbody></table>
<p class="muted">Signature, token and credential headers are never kept: their values show as [REDACTED].</p>`
    : '<p class="muted" id="headers">Headers are kept in memory for events this gateway received since it started; this one came earlier or through another gateway.</p>';
  const field = (label: string, value: string) => `<dt>${esc(label)}</dt><dd>${value}</dd>`;
  return `<p><a href="/ui">← events</a></p>
<h1 id="delivery" data-job-id="${esc(job.id)}" data-delivery-id="${esc(job.deliveryId)}" data-status="${esc(job.status)}" data-updated="${esc(job.updatedAt)}">${esc(job.deliveryId)} ${badge(job.status)}</h1>
<p class="actions">
<button type="button" id="replay" data-id="${esc(job.id)}">Replay</button>
${job.status === 'dead' ? `<button type="button" id="retry" data-id="${esc(job.id)}">Retry</button>` : ''}
<span id="action-result" role="status"></span>
</p>
<dl class="summary">
${field('route', esc(job.route))}
${field('event', esc(job.event || '–'))}
${field('job id', esc(job.id))}
${field('step', esc(job.step))}
${field('attempts of this step', esc(job.attempts))}
${field('received', time(job.receivedAt))}
${field('updated', time(job.updatedAt))}
${field('finished', time(job.finishedAt))}
${job.status === 'pending' ? field('next run', time(job.runAt)) : ''}
${jobOutcome(job) ? field('outcome', `<span id="outcome" data-outcome="${esc(jobOutcome(job))}">${esc(outcomeText(job))}</span>`) : ''}
${job.outcome === 'silent' && job.note ? field('note', esc(job.note)) : ''}
${waitingNote(job) ? field('waiting', `<span id="waiting">${esc(waitingNote(job))}</span>`) : ''}
${usageText(job.usage) ? field('tokens', `<span id="tokens">${esc(usageText(job.usage))}</span>`) : ''}
${sandboxText(job.usage) ? field('sandbox', `<span id="sandbox">${esc(sandboxText(job.usage))}</span>`) : ''}
${job.coalesced ? field('coalesced', `<span id="coalesced">${esc(coalescedText(job))}</span>`) : ''}
${job.coalesceKey !== undefined ? field('coalesce key', esc(job.coalesceKey)) : ''}
${job.concurrencyKey !== undefined ? field('concurrency key', esc(job.concurrencyKey)) : ''}
</dl>
<h2>Request headers</h2>
${headers}
<h2>Payload</h2>
<pre id="payload">${esc(json(job.payload))}</pre>
${job.coalesced?.payloads ? `<h2>Payloads of the ${esc(job.coalesced.payloads.length)} coalesced events <small>(in arrival order)</small></h2>\n<pre id="coalesced-payloads">${esc(json(job.coalesced.payloads))}</pre>` : ''}
<h2>Prompt</h2>
${pre(job.prompt, 'Not rendered yet.', 'prompt')}
<h2>Answer</h2>
${pre(job.answer, 'No answer yet.', 'answer')}
${actionsSection(job)}
${conversation}
<h2>Attempts</h2>
${attemptsTable(job, activity)}
<h2>Delivery receipt</h2>
${receiptSection(job)}`;
}

export function loginPage(message?: string): string {
  return `<h1>Sign in</h1>
<p>The dashboard needs the gateway's admin token: the value of <code>HOOKWISE_ADMIN_TOKEN</code> in the config dir's <code>.env</code> (config.yaml's <code>admin.token</code> names it).</p>
${message ? `<p class="error" id="login-error" role="alert">${esc(message)}</p>` : ''}
<form method="post" action="/ui/login" class="login">
<label>Admin token <input type="password" name="token" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>`;
}

export function refusedPage(message: string): string {
  return `<h1>Not allowed</h1><p class="error" role="alert">${esc(message)}</p>`;
}
