// Runs the pr-review example as a new user would: its config dir copied with the stand-ins' URLs put in, a real
// gateway, the signed pull_request fixture in. `claude` on PATH is a stand-in (stand-ins/claude.js) that records
// what it got, reads the diff with the one curl its --allowedTools allow, and calls the route's actions over the
// job channel with the MCP SDK's client; GitHub is a stand-in API (stand-ins/github-api.ts). The review must land as
// one sticky comment posted by the App (JWT -> installation token -> comment, edited by the next push), the label
// through the action, also as the App (a label outside the policy refused), and neither GH_TOKEN nor the model key
// in the agent's environment (the model proxy's per-run token in its place).
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseDocument } from 'yaml';
import { githubFixture, signGithub, startTestGateway, testProcessEnv, type TestGateway } from '@hookwise/testing';
import { DIFF, INSTALLATION_TOKEN, startGithubApi, type GithubApi } from '../stand-ins/github-api';

const EXAMPLE_DIR = join(__dirname, '..', '..');
const SECRET = 'pr-review-example-secret-0123456789';
const GH_TOKEN = 'ghp_gatewayOnlyToken0123456789abcdef';
const API_KEY = 'sk-ant-pr-review-example-key';
const INSTALLATION = 4242;
const keys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

interface Run {
  argv: string[];
  env: string[];
  key: string | null;
  prompt: string;
  diff: string | null;
  mcp: { file: string; mode: number; config: { mcpServers: Record<string, { type: string; url: string; headers: Record<string, string> }> } } | null;
  tools?: string[];
  refused?: { isError?: boolean; content: Array<{ text: string }> };
  labelled?: { isError?: boolean; content: Array<{ text: string }> };
}

let work: string;
let github: GithubApi;
let gateway: TestGateway | undefined;

beforeEach(async () => {
  work = mkdtempSync(join(tmpdir(), 'hookwise-pr-review-'));
  github = await startGithubApi({ publicKey: keys.publicKey, installationId: INSTALLATION });
});
afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
  await github.close();
  rmSync(work, { recursive: true, force: true });
});

/** The example copied as a user would, the App's key beside it, and only the stand-ins' addresses changed. */
function prepare(): { configDir: string; config: string; runs: string; bin: string } {
  const configDir = join(work, 'home');
  cpSync(EXAMPLE_DIR, configDir, { recursive: true, filter: (src) => !src.startsWith(join(EXAMPLE_DIR, 'test')) });
  writeFileSync(join(configDir, 'github-app.pem'), keys.privateKey, { mode: 0o600 });
  const bin = join(work, 'bin');
  const runs = join(work, 'runs');
  mkdirSync(bin);
  mkdirSync(runs);
  copyFileSync(join(__dirname, '..', 'stand-ins', 'claude.js'), join(bin, 'claude'));
  chmodSync(join(bin, 'claude'), 0o755);
  const sdk = dirname(require.resolve('@modelcontextprotocol/sdk/client/index.js'));

  const doc = parseDocument(readFileSync(join(configDir, 'config.yaml'), 'utf8'));
  const route = ['platforms', 'webhook', 'extra', 'routes', 'pr-review'];
  doc.setIn([...route, 'coalesce', 'window_seconds'], 0.1); // 5 minutes in the example
  doc.setIn(['platforms', 'github_comment', 'api_base'], github.url);
  const args = doc.getIn(['agent', 'args']) as { toJSON(): string[] };
  doc.setIn(
    ['agent', 'args'],
    args.toJSON().map((a) => a.replace('https://api.github.com', github.url)),
  );
  doc.setIn(['agent', 'sandbox', 'network'], [github.host]);
  // The stand-in's own needs: the SDK it is written with, and a dir outside its work dir to file what it saw.
  doc.setIn(['agent', 'sandbox', 'read_only'], [bin, join(EXAMPLE_DIR, '..', '..', 'node_modules')]);
  doc.setIn(['agent', 'sandbox', 'writable'], [runs]);
  doc.setIn(['agent', 'env'], [`STANDIN_RUNS=${runs}`, `STANDIN_SDK=${sdk}`]);
  return { configDir, config: doc.toString(), runs, bin };
}

function env(bin: string): NodeJS.ProcessEnv {
  return testProcessEnv(undefined, {
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    // The .env of the README, and a GH_TOKEN left over from using `gh` on this machine: it must not reach the agent.
    PR_REVIEW_SECRET: SECRET,
    GITHUB_APP_ID: '31337',
    ANTHROPIC_API_KEY: API_KEY,
    GH_TOKEN,
  });
}

function pullRequest(action: string, sha: string): Buffer {
  const body = JSON.parse(githubFixture('pull_request.opened').toString('utf8')) as {
    action: string;
    installation?: unknown;
    pull_request: { head: { sha: string }; url: string };
  };
  body.action = action;
  body.installation = { id: INSTALLATION };
  body.pull_request.head.sha = sha;
  body.pull_request.url = `${github.url}/repos/Codertocat/Hello-World/pulls/2`;
  return Buffer.from(JSON.stringify(body));
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const runsIn = (dir: string): Run[] =>
  readdirSync(dir)
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Run);

describe('examples/pr-review', () => {
  it('reviews with the claude preset: the diff read, a label through the action, one sticky comment by the App', async () => {
    const { configDir, config, runs, bin } = prepare();
    gateway = await startTestGateway({ configDir, config, env: env(bin), pollMs: 20 });
    const first = '1111111111111111111111111111111111111111';
    const body = pullRequest('opened', first);
    const res = await gateway.post('pr-review', body, {
      'X-GitHub-Event': 'pull_request',
      'X-GitHub-Delivery': 'pr-review-example-1',
      'X-Hub-Signature-256': signGithub(SECRET, body),
    });
    expect(res.status).toBe(202);
    await waitFor('the review comment', () => github.comments.size === 1).catch((err: Error) => {
      throw new Error(`${err.message}; the gateway's log:\n${gateway!.logText()}`);
    });

    const [run] = runsIn(runs);
    // The model key stays in the gateway: the agent's ANTHROPIC_API_KEY is the model proxy's per-run token (the
    // proxy is on by default for agent CLIs). The gateway's GitHub token and the App's id never reach it either.
    expect(run.key).not.toBe(API_KEY);
    expect(run.key).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(run.env).toContain('ANTHROPIC_BASE_URL');
    expect(run.env).not.toContain('GH_TOKEN');
    expect(run.env).not.toContain('GITHUB_APP_ID');
    expect(run.env).not.toContain('PR_REVIEW_SECRET');
    // The preset's flags, the route's actions, the example's allowed tools.
    expect(run.argv.slice(0, 3)).toEqual(['-p', '--output-format', 'json']);
    expect(run.argv).toContain('--mcp-config');
    expect(run.argv[run.argv.indexOf('--mcp-config') + 2]).toBe('--allowedTools');
    expect(run.argv).toContain('mcp__hookwise__*');
    expect(run.argv).toContain(`Bash(curl -sSfL -H "Accept: application/vnd.github.diff" ${github.url}/repos/*),Read,Grep`);
    expect(run.mcp!.mode).toBe(0o600);
    expect(run.mcp!.config.mcpServers.hookwise).toMatchObject({ type: 'http', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/job$/) });
    expect(run.argv.join(' ')).not.toContain(run.mcp!.config.mcpServers.hookwise.headers.Authorization.slice(7));
    // The diff, through the one allowed curl, and the tools the route allows.
    expect(run.diff).toBe(DIFF);
    expect(run.tools).toEqual(['github.add_labels', 'github.review']);
    expect(run.refused!.isError).toBe(true);
    expect(run.refused!.content[0].text).toContain('wontfix');
    expect(run.labelled!.isError).toBeFalsy();
    expect(github.labels).toEqual(['needs-tests']);
    // The first review: no previous head yet, so the placeholder stays as written (the prompt says what that means).
    expect(run.prompt).toContain('Commit of your last review: {__previous__.pull_request.head.sha}');

    // The comment: posted by the App with its installation token, minted with a verified JWT.
    const comment = [...github.comments.values()][0];
    expect(comment).toMatchObject({ issue: 2, body: 'Review of 1111111: 7 diff lines read. Add a test.' });
    expect(github.jwtClaims[0]).toMatchObject({ iss: expect.anything() });
    expect(String(github.jwtClaims[0].iss)).toBe('31337');
    const posts = github.requests.filter((r) => r.path.includes('/issues/2/comments') || r.path.includes('/issues/comments/'));
    expect(posts.map((r) => r.headers.authorization)).toEqual([`token ${INSTALLATION_TOKEN}`]);
    const labelCall = github.requests.find((r) => r.path.endsWith('/issues/2/labels'));
    // The label too is added by the App (the actions use the github_comment App when one is configured).
    expect(labelCall?.headers.authorization).toBe(`token ${INSTALLATION_TOKEN}`);

    // A push to the pull request: the same comment is edited, and the prompt names the head reviewed last time.
    const second = '2222222222222222222222222222222222222222';
    const push = pullRequest('synchronize', second);
    expect(
      (
        await gateway.post('pr-review', push, {
          'X-GitHub-Event': 'pull_request',
          'X-GitHub-Delivery': 'pr-review-example-2',
          'X-Hub-Signature-256': signGithub(SECRET, push),
        })
      ).status,
    ).toBe(202);
    await waitFor('the edited comment', () => [...github.comments.values()][0].body.startsWith('Review of 2222222'));
    expect(github.comments.size).toBe(1);
    expect(runsIn(runs)[1].prompt).toContain(`Commit of your last review: ${first}`);
    expect(github.requests.filter((r) => r.method === 'PATCH').map((r) => r.headers.authorization)).toEqual([`token ${INSTALLATION_TOKEN}`]);
    expect(existsSync(run.mcp!.file)).toBe(false);
  }, 60_000);

  it('ignores other events sent to the same hook and refuses unsigned requests', async () => {
    const { configDir, config, bin } = prepare();
    gateway = await startTestGateway({ configDir, config, env: env(bin) });
    const push = Buffer.from(JSON.stringify({ ref: 'refs/heads/main' }));
    const ignored = await gateway.post('pr-review', push, { 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': signGithub(SECRET, push) });
    expect([ignored.status, ignored.body]).toEqual([200, { status: 'ignored', event: 'push' }]);
    const unsigned = await gateway.post('pr-review', githubFixture('pull_request.opened'), { 'X-GitHub-Event': 'pull_request' });
    expect([unsigned.status, unsigned.body]).toEqual([401, { error: 'Missing signature' }]);
  });
});
