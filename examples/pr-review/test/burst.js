// The recorded burst (fixtures/burst.json: 100 GitHub deliveries, six pull requests) replayed into a running copy of
// this example, and what the agent reviewed. Shared by the example's test (burst.test.ts) and `npm run bench`
// (bench/scenarios/burst.js), so that both judge the same way.
//
// Time is compressed: the burst spans about 12 minutes and the example's coalescing window is 5 minutes; a replay
// `speedup` times faster uses a window `speedup` times shorter (windowSeconds below), so the events fall into the
// same windows as they would at full length.
'use strict';
const { createHmac } = require('node:crypto');
const { chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { parseDocument } = require('yaml');

const EXAMPLE_DIR = path.join(__dirname, '..');
const BURST_FILE = path.join(__dirname, 'fixtures', 'burst.json');
/** The actions the example's filter lets through (config.yaml), for reading the burst. */
const REVIEWED_ACTIONS = ['opened', 'synchronize', 'reopened', 'ready_for_review'];

/** The 100 deliveries: { at (seconds), headers, body }. */
function loadBurst() {
  return JSON.parse(readFileSync(BURST_FILE, 'utf8')).deliveries;
}

/** `octo-org/api#101` */
const prKey = (payload) => `${payload.repository.full_name}#${payload.pull_request?.number ?? payload.number}`;

/**
 * Each pull request's final head sha: the head of its last `pull_request` event in the burst (closing keeps it).
 * Returns Map<prKey, sha>.
 */
function finalHeads(deliveries) {
  const heads = new Map();
  for (const d of deliveries) if (d.headers['X-GitHub-Event'] === 'pull_request') heads.set(prKey(d.body), d.body.pull_request.head.sha);
  return heads;
}

/**
 * A copy of the example in `workDir/home` with GitHub's CLI and the agent replaced by stand-ins (small sh scripts:
 * the agent files each prompt it gets under `workDir/runs`, `gh` discards the comment), the rate limit lifted (see
 * below), the coalescing window set to
 * `windowSeconds`, and, with `plain: true`, the filter and coalescing taken out (the example as it was before).
 * `edit(doc)` may change the YAML document further (port, store). Writes the copy's config.yaml and returns
 * { configDir, config (its text), runsDir }.
 */
function prepareExample({ workDir, windowSeconds, plain = false, edit }) {
  const configDir = path.join(workDir, 'home');
  const runsDir = path.join(workDir, 'runs');
  mkdirSync(runsDir, { recursive: true });
  cpSync(EXAMPLE_DIR, configDir, { recursive: true, filter: (src) => !src.startsWith(path.join(EXAMPLE_DIR, 'test')) });
  const agent = path.join(workDir, 'agent.sh');
  // One file per run, named by the start time in ns: runs of one pull request never overlap (the coalesce key is
  // the concurrency key), so the names order them. `--version` is the gateway's start-up check of the command.
  writeFileSync(
    agent,
    `#!/bin/sh\n[ "$1" = --version ] && echo "review stand-in 1.0" && exit 0\nf=${JSON.stringify(runsDir)}/run-$(date +%s%N)-$$\ncat > "$f.tmp" && mv "$f.tmp" "$f.txt"\necho "Looks good to me."\n`,
  );
  const gh = path.join(workDir, 'gh');
  writeFileSync(gh, '#!/bin/sh\ncat > /dev/null\necho "https://github.com/$5/pull/$3#issuecomment-1"\n');
  chmodSync(agent, 0o755);
  chmodSync(gh, 0o755);
  const doc = parseDocument(readFileSync(path.join(configDir, 'config.yaml'), 'utf8'));
  // What the burst measures is how often the agent runs, so the agent is a plain command and the comment goes
  // through a stand-in `gh`: the preset's JSON output, the App, the actions and the sticky comment are the
  // concern of pr-review.test.ts.
  doc.setIn(['platforms', 'github_comment'], { cli_path: gh });
  doc.setIn(['agent', 'command'], [agent]);
  for (const key of ['preset', 'args']) doc.deleteIn(['agent', key]);
  for (const key of ['installation_id', 'sticky']) doc.deleteIn(['platforms', 'webhook', 'extra', 'routes', 'pr-review', 'deliver_extra', key]);
  doc.deleteIn(['platforms', 'webhook', 'extra', 'routes', 'pr-review', 'actions']);
  // The stand-in files its prompts outside its per-run work dir: the agent sandbox lets it write there only when listed.
  doc.setIn(['agent', 'sandbox', 'writable'], [runsDir]);
  // The rate limit counts per minute, which a compressed replay cannot compress: at full length the burst stays
  // under the default 30 per minute (at most 10 pull_request events in any minute), so the replay lifts it.
  doc.setIn(['platforms', 'webhook', 'extra', 'rate_limit'], 100_000);
  const route = ['platforms', 'webhook', 'extra', 'routes', 'pr-review'];
  if (plain) {
    doc.deleteIn([...route, 'filter']);
    doc.deleteIn([...route, 'coalesce']);
  } else {
    doc.setIn([...route, 'coalesce', 'window_seconds'], windowSeconds);
  }
  edit?.(doc);
  const config = doc.toString();
  writeFileSync(path.join(configDir, 'config.yaml'), config);
  return { configDir, config, runsDir };
}

/** GitHub's signature header for `body`. */
function signature(secret, body) {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Replays the burst into `url` (POST /webhooks/pr-review of a running gateway), signed with `secret`, each delivery
 * at its recorded offset divided by `speedup` (Infinity: one after the other at once). Resolves with each answer:
 * { status, body, event, action }.
 */
async function replay({ url, secret, speedup, deliveries = loadBurst() }) {
  const started = Date.now();
  const sends = [];
  // The last send of each pull request: the next one of the same pull request waits for its answer.
  const lastOf = new Map();
  for (const d of deliveries) {
    if (Number.isFinite(speedup)) {
      const wait = started + (d.at * 1000) / speedup - Date.now();
      if (wait > 0) await sleep(wait);
    }
    const body = Buffer.from(JSON.stringify(d.body));
    const key = d.body.repository ? prKey(d.body) : undefined;
    const post = () =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...d.headers, 'X-Hub-Signature-256': signature(secret, body) },
        body,
      });
    // Compressed 150x, two events of one pull request 30 s apart are 200 ms apart, and on a busy machine the
    // later one could overtake the earlier: GitHub, with the real 30 s between them, delivers them in order.
    const previous = key === undefined ? undefined : lastOf.get(key);
    const posted = previous ? previous.then(post, post) : post();
    if (key !== undefined) lastOf.set(key, posted);
    const send = posted.then(async (res) => {
      const text = await res.text();
      let parsed;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = { raw: text };
      }
      return { status: res.status, body: parsed, event: d.headers['X-GitHub-Event'], action: d.body.action };
    });
    // At full speed one at a time, so that the order is the recorded one; timed sends of different pull requests
    // may overlap like GitHub's.
    sends.push(Number.isFinite(speedup) ? send : await send);
  }
  return Promise.all(sends);
}

/** The runs the stand-in agent recorded, in start order: { pr: 'octo-org/api#101', sha, prompt }. */
function readRuns(runsDir) {
  return readdirSync(runsDir)
    .filter((f) => f.endsWith('.txt'))
    .sort((a, b) => (BigInt(a.split('-')[1]) < BigInt(b.split('-')[1]) ? -1 : 1))
    .map((f) => {
      const prompt = readFileSync(path.join(runsDir, f), 'utf8');
      const pr = /Review pull request #(\d+) in (\S+?):/.exec(prompt);
      const sha = /It merges \S+ \(([0-9a-f]{40})\)/.exec(prompt);
      return { pr: pr ? `${pr[2]}#${pr[1]}` : '?', sha: sha ? sha[1] : '?', prompt };
    });
}

/**
 * Judges the runs against the burst: for each pull request, its runs, whether its final head was reviewed at all,
 * and whether its last review was of the final head. Returns { perPr: [{ pr, runs, finalSha, reviewedFinal,
 * lastIsFinal }], allFinal } (allFinal: every pull request's last review is of its final head).
 */
function judge(runs, deliveries = loadBurst()) {
  const perPr = [...finalHeads(deliveries)].map(([pr, finalSha]) => {
    const mine = runs.filter((r) => r.pr === pr);
    return {
      pr,
      runs: mine.length,
      finalSha,
      reviewedFinal: mine.some((r) => r.sha === finalSha),
      lastIsFinal: mine.length > 0 && mine[mine.length - 1].sha === finalSha,
    };
  });
  return { perPr, allFinal: perPr.every((p) => p.lastIsFinal) };
}

/** Jobs the answers stand for: accepted events that did not join a job already waiting (202 without `coalesced`). */
const jobsOf = (answers) => answers.filter((a) => a.status === 202 && !a.body.coalesced).length;

/** Resolves with the recorded runs once there are `expected` of them, or after `timeoutMs` with what there is. */
async function waitForRuns(runsDir, expected, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  const count = () => readdirSync(runsDir).filter((f) => f.endsWith('.txt')).length;
  while (count() < expected && Date.now() < until) await sleep(100);
  return readRuns(runsDir);
}

module.exports = { EXAMPLE_DIR, REVIEWED_ACTIONS, loadBurst, prKey, finalHeads, prepareExample, signature, replay, jobsOf, readRuns, waitForRuns, judge };
