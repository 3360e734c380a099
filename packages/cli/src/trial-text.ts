// A trial as people read it in a terminal: per event a header line, then the old and the new answer in two
// columns side by side (silent or not, tokens and time on top), then the totals.
import { tokenCount } from '@hookwise/gateway';
import type { TrialEvent, TrialRecord, TrialSide } from './trial-store';

/** At most this many lines of an answer per column; the whole answer is in --json and `trials show --json`. */
const MAX_ANSWER_LINES = 12;

const CHANGE_TEXT: Record<TrialEvent['change'], string> = {
  same: 'same answer',
  changed: 'answer changed',
  'filtered-out-now': 'filtered out now',
  'passes-now': 'now passes the filter',
  'both-filtered': 'filtered out before and now',
  error: 'the trial run failed',
};

const seconds = (ms: number | undefined): string => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)}s`);
const tokens = (count: number | undefined): string => (count === undefined ? '- tokens' : `${tokenCount(count)} tokens`);
const percent = (rate: number): string => `${Math.round(rate * 100)}%`;

/** One side's head and body lines. */
function sideLines(side: TrialSide, which: 'old' | 'new'): string[] {
  if (side.filter === 'filtered') return [`${which.toUpperCase()}: filtered out`, ...(side.filterReason ? [side.filterReason] : [])];
  const state = side.error ? 'failed' : side.silent ? 'silent' : side.answer === undefined ? 'no answer' : 'answer';
  const head = `${which.toUpperCase()}: ${state} · ${tokens(side.tokens)} · ${seconds(side.durationMs)}${side.status ? ` · ${side.status}` : ''}`;
  const body = side.error && side.answer === undefined ? [side.error] : (side.answer ?? '').split('\n');
  const shown = body.slice(0, MAX_ANSWER_LINES);
  if (body.length > shown.length) shown.push(`... (${body.length - shown.length} more lines)`);
  return [head, ...shown];
}

/** Breaks a line into pieces of at most `width` characters. */
function wrap(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const pieces: string[] = [];
  for (let at = 0; at < line.length; at += width) pieces.push(line.slice(at, at + width));
  return pieces;
}

/** Two columns of lines side by side, each `width` wide, separated by " │ ". */
export function sideBySide(left: string[], right: string[], width: number): string[] {
  const l = left.flatMap((line) => wrap(line, width));
  const r = right.flatMap((line) => wrap(line, width));
  return Array.from({ length: Math.max(l.length, r.length) }, (_, i) => `  ${(l[i] ?? '').padEnd(width)} │ ${r[i] ?? ''}`.trimEnd());
}

export function eventText(event: TrialEvent, columns: number): string {
  const width = Math.max(24, Math.floor((columns - 5) / 2));
  const head = `${event.deliveryId}  ${event.event || '-'}  ${new Date(event.receivedAt).toISOString()}  ${CHANGE_TEXT[event.change]}`;
  return [head, ...sideBySide(sideLines(event.old, 'old'), sideLines(event.new, 'new'), width)].join('\n');
}

export function totalsText(trial: TrialRecord): string {
  const t = trial.totals;
  const lines = [
    `Trial ${trial.id} on route '${trial.route}': ${t.events} events, ${t.runs} runs, silent ${percent(t.silentRate.old)} before / ${percent(t.silentRate.new)} now, ` +
      `tokens ${tokenCount(t.tokens.old)} before / ${tokenCount(t.tokens.new)} now, time ${seconds(t.durationMs.new)} (runs together).`,
  ];
  if (t.filteredOutNow || t.passesNow) lines.push(`Filter: ${t.filteredOutNow} filtered out now, ${t.passesNow} now pass.`);
  if (t.errors) lines.push(`${t.errors} trial runs failed.`);
  if (trial.stopped) lines.push(`Stopped: ${trial.stopped.reason} (${trial.stopped.notRun.length} not run).`);
  lines.push('Nothing was delivered. See it again: hookwise trials show ' + trial.id);
  return lines.join('\n');
}

export function trialText(trial: TrialRecord, columns: number): string {
  return [...trial.events.map((event) => eventText(event, columns)), '', totalsText(trial)].join('\n\n').replace(/\n\n\n/g, '\n\n');
}
