// The bench's own check (not part of `npm test`): `node --test bench/test`. A run of some phases must replace only
// their sections and goal rows in docs/performance.md and keep the others' as they were.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { writeInto, parseBlock } = require('../lib/report');

const run = (when, phases) => ({ header: `Measured ${when}.`, when, provenance: `Measured ${when}.`, phases });
const phase = (key, text, goals = []) => ({ key, title: key.toUpperCase(), markdown: text, goals });
const blockOf = (doc) => doc.slice(doc.indexOf('<!-- bench:begin -->') + 20, doc.indexOf('<!-- bench:end -->'));

test('a partial run keeps the sections and goals of the phases it did not run', () => {
  const empty = '# Performance\n\n<!-- bench:begin -->\n<!-- bench:end -->\n\ntext after\n';
  const first = writeInto(
    empty,
    run('T1', [
      phase('throughput', 'T1 table', [{ name: 'fast', value: '1×', ok: true }]),
      phase('burst', 'B1 table', [{ name: 'fewer runs', value: '6×', ok: true }]),
    ]),
  );
  const second = writeInto(first, run('T2', [phase('burst', 'B2 table', [{ name: 'fewer runs', value: '7×', ok: false }])]));
  const parsed = parseBlock(blockOf(second));
  assert.deepStrictEqual([...parsed.sections.keys()], ['throughput', 'burst']);
  assert.match(parsed.sections.get('throughput'), /T1 table/);
  assert.match(parsed.sections.get('burst'), /B2 table/);
  assert.doesNotMatch(second, /B1 table/);
  assert.deepStrictEqual(parsed.goals, [
    ['fast', '1×', 'met', 'throughput (T1)'],
    ['fewer runs', '7×', '**missed**', 'burst (T2)'],
  ]);
  assert.ok(second.endsWith('<!-- bench:end -->\n\ntext after\n'));
  // Writing the same run again changes nothing.
  assert.strictEqual(writeInto(second, run('T2', [phase('burst', 'B2 table', [{ name: 'fewer runs', value: '7×', ok: false }])])), second);
});

test('a document without the markers is refused with what to do', () => {
  assert.throws(() => writeInto('# Performance\n', run('T', [])), /put both markers back/);
});
