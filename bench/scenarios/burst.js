// The pr-review burst (issue 23): the recorded 100 GitHub deliveries of examples/pr-review/test/fixtures/burst.json
// replayed, signed with the route's secret over real HTTP, into a real `hookwise gateway run` on a copy of the
// example, twice: as the example was before (no filter, no coalescing: every pull_request event runs the agent) and
// as it is now (filter + coalescing). The agent is a stand-in that files each prompt, so the bench counts the runs
// and reads which pull request and head sha each one reviewed. Both replays keep the recorded spacing, compressed
// `speedup` times, with the coalescing window compressed alike (examples/pr-review/test/burst.js).
'use strict';
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { freePort, startGatewayHome } = require('../lib/servers');
const { num, table } = require('../lib/format');
const burst = require('../../examples/pr-review/test/burst');

const SECRET = 'pr-review-bench-secret-0123456789abcdef';
/** The example's window (config.yaml), in seconds of the recorded timeline. */
const EXAMPLE_WINDOW_SECONDS = 300;

async function replayInto(plain, speedup, log) {
  const workDir = mkdtempSync(path.join(tmpdir(), `hookwise-bench-burst-${plain ? 'plain' : 'filtered'}-`));
  const port = await freePort();
  const { configDir, runsDir } = burst.prepareExample({
    workDir,
    plain,
    windowSeconds: EXAMPLE_WINDOW_SECONDS / speedup,
    edit(doc) {
      doc.setIn(['platforms', 'webhook', 'extra', 'port'], port);
      doc.setIn(['log'], doc.createNode({ level: 'warn' }));
    },
  });
  const gateway = await startGatewayHome({ home: configDir, port, env: { PR_REVIEW_SECRET: SECRET }, label: 'gateway (pr-review example)' });
  try {
    const started = Date.now();
    const answers = await burst.replay({ url: `http://127.0.0.1:${port}/webhooks/pr-review`, secret: SECRET, speedup });
    const replaySeconds = (Date.now() - started) / 1000;
    const jobs = burst.jobsOf(answers);
    const runs = await burst.waitForRuns(runsDir, jobs, 120_000);
    const verdict = burst.judge(runs);
    const r = {
      plain,
      sent: answers.length,
      accepted: answers.filter((a) => a.status === 202).length,
      coalesced: answers.filter((a) => a.status === 202 && a.body.coalesced).length,
      ignoredByType: answers.filter((a) => a.status === 200 && a.body.status === 'ignored' && a.body.reason !== 'filter').length,
      ignoredByFilter: answers.filter((a) => a.status === 200 && a.body.reason === 'filter').length,
      other: answers.filter((a) => a.status !== 202 && a.status !== 200).length,
      jobs,
      runs: runs.length,
      verdict,
      replaySeconds,
      doneSeconds: (Date.now() - started) / 1000,
    };
    log(
      `  ${plain ? 'without' : 'with'} filter + coalescing: ${r.accepted} accepted (${r.coalesced} joined a waiting job), ${r.ignoredByType} ignored by event type, ${r.ignoredByFilter} by the filter; ${r.runs} agent runs; last review of the final head: ${verdict.perPr.filter((p) => p.lastIsFinal).length} of ${verdict.perPr.length} pull requests`,
    );
    return r;
  } finally {
    await gateway.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

async function run(options, log) {
  const speedup = options.burstSpeedup;
  const plain = await replayInto(true, speedup, log);
  const filtered = await replayInto(false, speedup, log);
  const ratio = plain.runs / filtered.runs;
  const finalReviewed = filtered.verdict.perPr.filter((p) => p.lastIsFinal).length;
  const prs = filtered.verdict.perPr.length;
  const goals = [
    {
      name: 'pr-review burst of 100 GitHub events: ≥ 5× fewer agent runs with the example’s filter + coalescing',
      value: `${plain.runs} → ${filtered.runs} runs (${num(ratio, 1)}×)`,
      ok: ratio >= 5,
    },
    {
      name: 'pr-review burst: no pull request left without its final review (its last review is of its final head)',
      value: `${finalReviewed} of ${prs} pull requests`,
      ok: finalReviewed === prs,
    },
  ];
  const row = (r) => [
    r.plain ? 'without (events: [pull_request] only)' : 'with filter + coalesce (config.yaml)',
    String(r.sent),
    `${r.accepted}${r.coalesced ? ` (${r.coalesced} joined a waiting job)` : ''}`,
    String(r.ignoredByType),
    String(r.ignoredByFilter),
    String(r.other),
    String(r.runs),
    `${r.verdict.perPr.filter((p) => p.reviewedFinal).length} of ${r.verdict.perPr.length}`,
    `${r.verdict.perPr.filter((p) => p.lastIsFinal).length} of ${r.verdict.perPr.length}`,
    `${num(r.replaySeconds, 1)} s / ${num(r.doneSeconds, 1)} s`,
  ];
  const perPr = filtered.verdict.perPr.map((p) => {
    const before = plain.verdict.perPr.find((x) => x.pr === p.pr);
    return [p.pr, String(before?.runs ?? '–'), String(p.runs), p.finalSha.slice(0, 7), p.lastIsFinal ? 'yes' : '**no**'];
  });
  const markdown = [
    table(
      [
        'pr-review example',
        'events sent',
        'accepted (202)',
        'ignored: event type',
        'ignored: filter',
        'other answers',
        'agent runs',
        'final head reviewed',
        'last review is of the final head',
        'replay / all reviews done',
      ],
      [row(plain), row(filtered)],
    ),
    '',
    table(['pull request', 'runs without', 'runs with', 'final head', 'last review of the final head (with)'], perPr),
    '',
    `The recorded burst (\`examples/pr-review/test/fixtures/burst.json\`, written by \`make-burst.js\` in that directory): 100 GitHub deliveries to one hook subscribed to pull requests and pushes, about 12 minutes of two repositories: 71 \`pull_request\` events for 6 pull requests (opened, 42 synchronize in bursts, labeled and unlabeled, edited, review_requested, a draft made ready, closed and reopened) and 29 pushes. Each replay goes into a real \`hookwise gateway run\` on a copy of \`examples/pr-review\` (SQLite store, \`agent.concurrency\` 2), signed with the route's secret (\`X-Hub-Signature-256\`), each delivery at its recorded offset ÷ ${speedup}; the coalescing window (${EXAMPLE_WINDOW_SECONDS} s in config.yaml) is ÷ ${speedup} as well (${num(EXAMPLE_WINDOW_SECONDS / speedup, 1)} s), so events fall into the windows they would fall into at full length. The agent is a stand-in (a sh script filing each prompt) and \`gh\` one that discards the comment; "runs" are the prompts filed. "Final head": the head sha of a pull request's last event in the burst.`,
  ].join('\n');
  return { title: 'Agent runs: the pr-review burst (issue 23)', markdown, goals };
}

module.exports = { run };
