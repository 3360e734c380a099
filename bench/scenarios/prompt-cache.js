// The share of a route's input tokens served from the provider's prompt cache (`--only promptcache`): 20 recorded
// pull_request events of the pr-review burst (examples/pr-review/test/fixtures/burst.json), one after the other, into
// a real `hookwise gateway run` on a copy of examples/pr-review (its transform, prompt, code-review skill and
// actions; no filter or coalescing, so each event is one run) with the `anthropic` runner against a stand-in that
// caches prompt prefixes as Anthropic documents (bench/lib/prompt-cache-stand-in.js). The usage is read back as the
// gateway recorded it (the admin API). Since the stable part of a prompt (tools, system text, skills) comes first and
// the payload last, every event after the first should read that part from the cache.
'use strict';
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { freePort, startGatewayHome, sleep } = require('../lib/servers');
const { num, pct, table } = require('../lib/format');
const { startPromptCacheStandIn } = require('../lib/prompt-cache-stand-in');
const burst = require('../../examples/pr-review/test/burst');

const SECRET = 'prompt-cache-bench-secret-0123456789';
const EVENTS = 20;
const ROUTE = ['platforms', 'webhook', 'extra', 'routes', 'pr-review'];

/** The route's jobs as the gateway stored them, oldest first, once `count` of them are done or dead. */
async function finishedJobs(base, count, timeoutMs) {
  for (const until = Date.now() + timeoutMs; Date.now() < until; await sleep(200)) {
    const res = await fetch(`${base}/api/deliveries?route=pr-review&limit=100&full=1`);
    if (!res.ok) throw new Error(`GET /api/deliveries answered ${res.status}: ${await res.text()}`);
    const jobs = (await res.json()).deliveries;
    if (jobs.filter((j) => j.status === 'done' || j.status === 'dead').length >= count) return jobs.sort((a, b) => a.createdAt - b.createdAt);
  }
  throw new Error(`the gateway did not finish ${count} runs within ${timeoutMs / 1000} s`);
}

async function run(options, log) {
  const workDir = mkdtempSync(path.join(tmpdir(), 'hookwise-bench-prompt-cache-'));
  const model = await startPromptCacheStandIn();
  const port = await freePort();
  const { configDir } = burst.prepareExample({
    workDir,
    plain: true,
    edit(doc) {
      doc.setIn(['platforms', 'webhook', 'extra', 'port'], port);
      doc.setIn(['log'], doc.createNode({ level: 'warn' }));
      doc.setIn(['admin'], doc.createNode({ enabled: true }));
      doc.setIn(['agent'], doc.createNode({ runner: 'anthropic', model: 'claude-sonnet-4-5', base_url: model.url, tools: ['terminal'], concurrency: 1 }));
      doc.setIn(
        [...ROUTE, 'actions'],
        doc.createNode({
          'github.add_labels': { allow: ['needs-tests', 'security', 'breaking-change'], max: 1 },
          'github.review': { events: ['COMMENT'], max: 1 },
        }),
      );
    },
  });
  const deliveries = burst
    .loadBurst()
    .filter((d) => d.headers['X-GitHub-Event'] === 'pull_request')
    .slice(0, EVENTS);
  const gateway = await startGatewayHome({
    home: configDir,
    port,
    env: { PR_REVIEW_SECRET: SECRET, ANTHROPIC_API_KEY: 'sk-ant-bench', GH_TOKEN: 'ghp_bench' },
    label: 'gateway (pr-review example, anthropic runner)',
  });
  let jobs;
  try {
    const answers = await burst.replay({ url: `http://127.0.0.1:${port}/webhooks/pr-review`, secret: SECRET, speedup: Infinity, deliveries });
    const refused = answers.filter((a) => a.status !== 202);
    if (refused.length) throw new Error(`the gateway did not accept ${refused.length} events: ${JSON.stringify(refused[0])}`);
    jobs = await finishedJobs(`http://127.0.0.1:${port}`, EVENTS, 120_000);
  } finally {
    await gateway.stop();
    await model.close();
    rmSync(workDir, { recursive: true, force: true });
  }
  const rows = jobs.map((job, i) => {
    const u = job.usage ?? {};
    const input = u.inputTokens ?? 0;
    return {
      n: i + 1,
      status: job.status,
      input,
      cached: u.cachedInputTokens ?? 0,
      written: u.cacheWriteTokens ?? 0,
      share: input ? (u.cachedInputTokens ?? 0) / input : NaN,
    };
  });
  const later = rows.slice(1);
  const share = later.reduce((s, r) => s + r.cached, 0) / later.reduce((s, r) => s + r.input, 0);
  const lowest = Math.min(...later.map((r) => r.share));
  log(`  events 2-${rows.length}: ${pct(share * 100)} of input tokens read from the cache (lowest ${pct(lowest * 100)})`);
  const goals = [
    {
      name: `prompt cache: ≥ 70% of a route's input tokens read from the cache from its second event on (${EVENTS} pr-review events, anthropic runner)`,
      value: `${pct(share * 100)} (lowest event ${pct(lowest * 100)}; first event ${pct(rows[0].share * 100)})`,
      ok: share >= 0.7 && rows.every((r) => r.status === 'done'),
    },
  ];
  const markdown = [
    table(
      ['event', 'job', 'input tokens', 'read from the cache', 'written to the cache', 'share read'],
      rows.map((r) => [String(r.n), r.status, num(r.input), num(r.cached), num(r.written), pct(r.share * 100)]),
    ),
    '',
    `The first ${EVENTS} \`pull_request\` deliveries of the recorded pr-review burst, sent one after the other into a real \`hookwise gateway run\` on a copy of \`examples/pr-review\` (no filter or coalescing: each event is one run; \`agent.concurrency\` 1), its agent switched to the \`anthropic\` runner with the terminal tool and the example's actions. The stand-in caches the prefix up to each \`cache_control\` breakpoint as Anthropic documents (1,024 tokens at least; tokens estimated as 4 characters) and reports \`cache_read_input_tokens\` and \`cache_creation_input_tokens\`; the table is the usage the gateway stored with each job (\`GET /api/deliveries\`). The runner marks its system prompt (the tools come before it) as the breakpoint; the rendered prompt, which holds the payload, comes last.`,
  ].join('\n');
  return { title: 'Prompt cache: share of input tokens read from the cache', markdown, goals };
}

module.exports = { run };
