// The recorded burst (fixtures/burst.json: 100 GitHub deliveries, six pull requests, pushes, labels, edits) through
// this example in a real gateway, twice: as the example was before (every pull_request event runs the agent) and
// with its filter and coalescing. The agent is a stand-in that files each prompt; the claim of issue 23: at least
// 5x fewer runs, and every pull request's last review is of its final head.
// Time is compressed 150x: the 5-minute window becomes 2 s and the 12-minute burst about 5 s (burst.js).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestGateway, testProcessEnv, type TestGateway } from '@hookwise/testing';

interface Answer {
  status: number;
  body: Record<string, unknown>;
  event: string;
  action?: string;
}
interface Run {
  pr: string;
  sha: string;
}
interface Burst {
  loadBurst(): Array<{ at: number; headers: Record<string, string>; body: Record<string, unknown> }>;
  prepareExample(options: { workDir: string; windowSeconds?: number; plain?: boolean }): { configDir: string; config: string; runsDir: string };
  replay(options: { url: string; secret: string; speedup: number }): Promise<Answer[]>;
  jobsOf(answers: Answer[]): number;
  waitForRuns(runsDir: string, expected: number, timeoutMs?: number): Promise<Run[]>;
  judge(runs: Run[]): { perPr: Array<{ pr: string; runs: number; finalSha: string; reviewedFinal: boolean; lastIsFinal: boolean }>; allFinal: boolean };
}
const burst = require('../burst') as Burst;

const SECRET = 'pr-review-example-secret-0123456789';
const SPEEDUP = 150;
const WINDOW_SECONDS = 300 / SPEEDUP;

let work: string;
let gateway: TestGateway | undefined;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'hookwise-pr-burst-'));
});
afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
  rmSync(work, { recursive: true, force: true });
});

const env = () => testProcessEnv(undefined, { PR_REVIEW_SECRET: SECRET });

/** Replays the burst into a gateway on the prepared copy; resolves with the answers and the agent's runs. */
async function runBurst(plain: boolean): Promise<{ answers: Answer[]; runs: Run[] }> {
  const { configDir, config, runsDir } = burst.prepareExample({ workDir: join(work, plain ? 'plain' : 'filtered'), windowSeconds: WINDOW_SECONDS, plain });
  gateway = await startTestGateway({ configDir, config, env: env(), pollMs: 50 });
  // Without coalescing nothing depends on arrival times: the burst goes in at once, in its order.
  const answers = await burst.replay({ url: `${gateway.url}/webhooks/pr-review`, secret: SECRET, speedup: plain ? Infinity : SPEEDUP });
  const runs = await burst.waitForRuns(runsDir, burst.jobsOf(answers), 30_000);
  await gateway.stop();
  gateway = undefined;
  return { answers, runs };
}

describe('examples/pr-review: the recorded burst of 100 GitHub events', () => {
  it('runs the agent at least 5x less with the filter and coalescing, and the last review of every pull request is of its final head', async () => {
    const deliveries = burst.loadBurst();
    const pullRequestEvents = deliveries.filter((d) => d.headers['X-GitHub-Event'] === 'pull_request').length;
    expect([deliveries.length, pullRequestEvents]).toEqual([100, 71]);

    const plain = await runBurst(true);
    // Before: every pull_request event is a run; pushes are ignored by `events:` either way.
    expect(plain.answers.filter((a) => a.status === 202)).toHaveLength(pullRequestEvents);
    expect(plain.answers.filter((a) => a.event === 'push').every((a) => a.status === 200 && a.body.status === 'ignored')).toBe(true);
    expect(plain.runs).toHaveLength(pullRequestEvents);

    const filtered = await runBurst(false);
    // Labels, edits, reviewer requests, closing and the draft's events are filtered out, with the reason.
    const byFilter = filtered.answers.filter((a) => a.status === 200 && a.body.reason === 'filter');
    expect(byFilter.map((a) => a.action).sort()).toEqual(expect.arrayContaining(['closed', 'edited', 'labeled', 'review_requested', 'unlabeled']));
    expect(byFilter.some((a) => a.action === 'synchronize' || a.action === 'opened')).toBe(true); // the draft's
    // 46 events pass the filter; the ones inside a pull request's window join its waiting job.
    expect(filtered.answers.filter((a) => a.status === 202)).toHaveLength(46);
    expect(filtered.runs).toHaveLength(burst.jobsOf(filtered.answers));
    expect(filtered.runs.filter((r) => r.pr === '?' || r.sha === '?')).toEqual([]);
    expect(filtered.runs.length * 5).toBeLessThanOrEqual(plain.runs.length);

    const verdict = burst.judge(filtered.runs);
    expect(verdict.perPr).toHaveLength(6);
    for (const pr of verdict.perPr) expect({ pr: pr.pr, lastIsFinal: pr.lastIsFinal }).toEqual({ pr: pr.pr, lastIsFinal: true });
    expect(verdict.allFinal).toBe(true);
  }, 60_000);
});
