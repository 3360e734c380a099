// The agent sandbox's start cost (`--only sandbox`): `true` started through @hookwise/sandbox's command builder
// (bubblewrap, no network; and with the egress forwarder a route with `network` hosts gets), against a plain spawn
// of `true` measured in the same run, interleaved (packages/sandbox/bench/start-cost.js). Needs bubblewrap.
'use strict';
const path = require('node:path');
const { ROOT } = require('../lib/servers');
const { num, table } = require('../lib/format');

async function run(options, log) {
  const { measureStartCost } = require(path.join(ROOT, 'packages/sandbox/bench/start-cost.js'));
  const runs = options.sandboxRuns;
  const rows = await measureStartCost({ runs, commands: [['true', 'true', []]] });
  const byVariant = Object.fromEntries(rows.map((r) => [r.variant, r]));
  const closed = byVariant['sandbox, no network'];
  const networked = byVariant['sandbox + egress forwarder'];
  for (const row of rows) log(`  ${row.variant}: ${num(row.median, 1)} ms`);
  const markdown = [
    table(
      ['`true` started', `median spawn to exit (${runs} runs)`, 'added to a plain spawn'],
      rows.map((r) => [
        r.variant === 'unsandboxed' ? 'plain spawn (baseline)' : r.variant,
        `${num(r.median, 1)} ms`,
        r.variant === 'unsandboxed' ? '–' : `+${num(r.added, 1)} ms`,
      ]),
    ),
    '',
    `Each start is planned by the sandbox's command builder (\`openSandboxRun().plan\`, as an agent run's process is) and spawned by this process; the three ways take turns, ${runs} times each. The egress row adds the in-sandbox forwarder (socat where installed, else a node start) a route with \`agent.sandbox.network\` hosts gets.`,
  ].join('\n');
  const goals = [
    {
      name: 'the sandbox adds under 100 ms to starting `true` (median, no network)',
      value: `+${num(closed.added, 1)} ms (${num(closed.median, 1)} ms against a plain spawn's ${num(byVariant.unsandboxed.median, 1)} ms)`,
      ok: closed.added < 100,
    },
    {
      name: 'the sandbox with the egress forwarder adds under 100 ms to starting `true` (median)',
      value: `+${num(networked.added, 1)} ms (${num(networked.median, 1)} ms)`,
      ok: networked.added < 100,
    },
  ];
  return { title: 'Agent sandbox: start time', markdown, goals };
}

module.exports = { run };
