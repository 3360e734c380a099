// The pr-review example end to end with the real Claude Code (the pinned CLI, in the sandbox): its config dir copied as
// a user would, only the addresses of a GitHub API stand-in put in, and a scripted model behind the gateway's model
// proxy. A signed pull_request event runs the CLI, which reads the diff with the one curl the example's permission
// rule allows (through the sandbox's network list), posts its review with line comments through the gateway's
// github.review action, and answers; the GitHub stand-in receives the review and the sticky comment, both as the
// App, and the model the gateway's key, never the agent.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { githubFixture, signGithub, startTestGateway, testProcessEnv, type TestGateway } from '@hookwise/testing';
import { CLIS_BIN, realCli } from '../../../../plugins/agent-command/test/real-clis/agent-clis';
import { CLAUDE_OFFLINE } from '../../../../plugins/agent-command/test/real-clis/gateway-run';
import { anthropicStandIn, lastToolResult, type ModelStandIn } from '../../../../plugins/agent-command/test/real-clis/model-stand-ins';
import { DIFF, INSTALLATION_TOKEN, startGithubApi, type GithubApi } from '../stand-ins/github-api';

jest.setTimeout(120_000);

const EXAMPLE_DIR = join(__dirname, '..', '..');
const SECRET = 'pr-review-real-claude-secret-0123456789';
const API_KEY = 'sk-ant-pr-review-real-claude-key-0123';
const INSTALLATION = 4343;
const keys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

let work: string;
let github: GithubApi;
let model: ModelStandIn;
let gateway: TestGateway | undefined;

beforeAll(() => {
  realCli('claude');
});

beforeEach(async () => {
  work = mkdtempSync(join(tmpdir(), 'hookwise-pr-review-real-'));
  github = await startGithubApi({ publicKey: keys.publicKey, installationId: INSTALLATION });
  model = await anthropicStandIn();
});

afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
  await github.close();
  await model.close();
  rmSync(work, { recursive: true, force: true });
});

describe('examples/pr-review with the real Claude Code', () => {
  it('reads the diff with the allowed curl, posts its review through github.review, and the comment lands as the App', async () => {
    const configDir = join(work, 'home');
    cpSync(EXAMPLE_DIR, configDir, { recursive: true, filter: (src) => !src.startsWith(join(EXAMPLE_DIR, 'test')) });
    writeFileSync(join(configDir, 'github-app.pem'), keys.privateKey, { mode: 0o600 });
    const doc = parseDocument(readFileSync(join(configDir, 'config.yaml'), 'utf8'));
    doc.setIn(['platforms', 'webhook', 'extra', 'routes', 'pr-review', 'coalesce', 'window_seconds'], 0.1);
    doc.setIn(['platforms', 'github_comment', 'api_base'], github.url);
    const args = (doc.getIn(['agent', 'args']) as { toJSON(): string[] }).toJSON();
    doc.setIn(
      ['agent', 'args'],
      args.map((a) => a.replace('https://api.github.com', github.url)),
    );
    doc.setIn(['agent', 'sandbox', 'network'], [github.host]);
    doc.setIn(['agent', 'env'], CLAUDE_OFFLINE);
    doc.setIn(['store', 'backend'], 'memory');

    const prUrl = `${github.url}/repos/Codertocat/Hello-World/pulls/2`;
    const review = {
      body: 'The README gains a line; nothing tests it.',
      event: 'COMMENT',
      comments: [{ path: 'README.md', line: 2, body: 'Add a test for this.' }],
    };
    model.script(
      { tool: 'Bash', input: { command: `curl -sSfL -H "Accept: application/vnd.github.diff" ${prUrl}`, description: 'Read the diff' } },
      { tool: 'github_review', input: review },
      { text: 'Review of 1111111: one line added to the README. Add a test.' },
    );
    gateway = await startTestGateway({
      configDir,
      config: doc.toString(),
      env: testProcessEnv(undefined, {
        PATH: [CLIS_BIN, '/usr/bin', '/bin'].join(':'),
        HOME: join(work, 'operator'),
        HOOKWISE_DATA_DIR: join(work, 'data'),
        PR_REVIEW_SECRET: SECRET,
        GITHUB_APP_ID: '31337',
        // The .env of the README; the scripted model is the model proxy's upstream.
        ANTHROPIC_API_KEY: API_KEY,
        ANTHROPIC_BASE_URL: model.url,
      }),
      pollMs: 20,
    });

    const payload = JSON.parse(githubFixture('pull_request.opened').toString('utf8')) as {
      installation?: unknown;
      pull_request: { head: { sha: string }; url: string };
    };
    payload.installation = { id: INSTALLATION };
    payload.pull_request.head.sha = '1111111111111111111111111111111111111111';
    payload.pull_request.url = prUrl;
    const body = Buffer.from(JSON.stringify(payload));
    const res = await gateway.post('pr-review', body, {
      'X-GitHub-Event': 'pull_request',
      'X-GitHub-Delivery': 'pr-review-real-claude-1',
      'X-Hub-Signature-256': signGithub(SECRET, body),
    });
    expect(res.status).toBe(202);
    for (const until = Date.now() + 100_000; github.comments.size === 0;) {
      if (Date.now() > until) throw new Error(`no review comment; the gateway's log:\n${gateway.logText()}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    // The diff, read by the real CLI through the example's permission rule and the sandbox's network list.
    const diffRead = github.requests.find((r) => r.method === 'GET' && r.path === '/repos/Codertocat/Hello-World/pulls/2');
    expect(diffRead?.headers.accept).toBe('application/vnd.github.diff');
    expect(diffRead?.headers.authorization).toBeUndefined();
    expect(lastToolResult(model.requests[1])).toBe(DIFF.trimEnd());
    // The review, through the gateway's github.review action, posted by the App on the event's head commit.
    expect(github.reviews).toEqual([
      {
        pr: 2,
        body: { ...review, commit_id: '1111111111111111111111111111111111111111', comments: [{ ...review.comments[0], side: 'RIGHT' }] },
      },
    ]);
    const reviewCall = github.requests.find((r) => r.path.endsWith('/pulls/2/reviews'));
    expect(reviewCall?.headers.authorization).toBe(`token ${INSTALLATION_TOKEN}`);
    // The answer, as the sticky comment.
    expect([...github.comments.values()]).toEqual([
      { body: 'Review of 1111111: one line added to the README. Add a test.', issue: 2, by: 'pr-review-app[bot]' },
    ]);
    // Every model call through the model proxy, with the gateway's key; the CLI never had it.
    expect(model.headers.map((h) => h['x-api-key'])).toEqual([API_KEY, API_KEY, API_KEY]);
    expect(JSON.stringify(model.requests)).not.toContain(API_KEY);
  });
});
