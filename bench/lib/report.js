// The bench's block in docs/performance.md, merged per phase: a run of some phases (`--only`) replaces those phases'
// sections and goal rows and keeps the others' as they were, each section saying when and where it was measured.
'use strict';
const { table, goal } = require('./format');

const BEGIN = '<!-- bench:begin -->';
const END = '<!-- bench:end -->';
/** Marks where a phase's section starts: `<!-- bench:phase throughput -->`. */
const MARK = /^<!-- bench:phase (\S+) -->$/;
/** The order sections appear in, whatever order phases ran in. */
const ORDER = ['throughput', 'latency', 'memory', 'subscriptions', 'cli', 'observer', 'scaleout', 'burst', 'modelproxy', 'sandbox', 'promptcache'];
const GOALS_HEADER = ['goal', 'measured', '', 'phase (when)'];

/** Splits a markdown table row into its cells (no escaped pipes in our cells). */
function cells(line) {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(' | ')
    .map((c) => c.trim());
}

/** Reads the block between the markers: { goals: [[name, value, status, phaseWhen]], sections: Map<phase, text> }. */
function parseBlock(block) {
  const goals = [];
  const sections = new Map();
  const lines = block.split('\n');
  let current;
  let inGoals = false;
  for (const line of lines) {
    const mark = MARK.exec(line.trim());
    if (mark) {
      current = mark[1];
      sections.set(current, []);
      inGoals = false;
      continue;
    }
    if (current) {
      sections.get(current).push(line);
      continue;
    }
    if (line.startsWith('### Goals')) inGoals = true;
    else if (inGoals && line.startsWith('| ') && !line.startsWith('| goal |') && !line.startsWith('| ---')) {
      const row = cells(line);
      if (row.length === GOALS_HEADER.length) goals.push(row);
    }
  }
  return { goals, sections: new Map([...sections].map(([k, v]) => [k, v.join('\n').trim()])) };
}

/**
 * The new block: `run` is { header (the run's machine/load line), when ('2026-11-24 02:10 UTC'), provenance (the
 * line each new section starts with), phases: [{ key, title, markdown, goals }] }. Phases not in `run` keep their
 * section and goal rows from `oldBlock`.
 */
function mergeBlock(oldBlock, run) {
  const old = parseBlock(oldBlock);
  const ran = new Set(run.phases.map((p) => p.key));
  const sections = new Map([...old.sections].filter(([key]) => !ran.has(key)));
  for (const p of run.phases) sections.set(p.key, [`### ${p.title}`, '', `_${run.provenance}_`, '', p.markdown].join('\n'));
  const rank = (key) => (ORDER.includes(key) ? ORDER.indexOf(key) : ORDER.length);
  const keys = [...sections.keys()].sort((a, b) => rank(a) - rank(b));
  const goalRows = [];
  for (const key of keys) {
    const phase = run.phases.find((p) => p.key === key);
    if (phase) goalRows.push(...phase.goals.map((g) => [g.name, g.value, goal(g.ok), `${key} (${run.when})`]));
    else goalRows.push(...old.goals.filter((row) => row[3].split(' ')[0] === key));
  }
  return [
    `Last run: ${run.header} Each section below says when it was measured; a run of some phases (\`--only\`) replaces only theirs.`,
    '',
    '### Goals',
    '',
    table(GOALS_HEADER, goalRows),
    '',
    ...keys.flatMap((key) => [`<!-- bench:phase ${key} -->`, sections.get(key), '']),
  ].join('\n');
}

/** Replaces the bench block of `doc` (the text of docs/performance.md). */
function writeInto(doc, run, file = 'docs/performance.md') {
  const i = doc.indexOf(BEGIN);
  const j = doc.indexOf(END);
  if (i < 0 || j < i) throw new Error(`${file} has no ${BEGIN} … ${END} block to replace: put both markers back where the results go`);
  const block = mergeBlock(doc.slice(i + BEGIN.length, j), run);
  return `${doc.slice(0, i + BEGIN.length)}\n${block}${doc.slice(j)}`;
}

module.exports = { parseBlock, mergeBlock, writeInto };
