// Small formatting helpers for the bench's markdown.
'use strict';

const num = (n, digits = 0) => {
  if (!Number.isFinite(n)) return '–';
  const text = n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  // A small negative value (a heap that shrank by a few KB) rounds to "-0": show 0.
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
};
const mb = (bytes) => (bytes ? `${num(bytes / 1024 / 1024, 0)} MB` : '–');
const ms = (n) => (Number.isFinite(n) ? `${num(n, n < 10 ? 1 : 0)} ms` : '–');
const pct = (n) => (Number.isFinite(n) ? `${num(n, 1)}%` : '–');
const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** A markdown table from a header row and rows of cells. */
function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

const goal = (ok) => (ok === undefined ? '–' : ok ? 'met' : '**missed**');

module.exports = { num, mb, ms, pct, median, table, goal };
