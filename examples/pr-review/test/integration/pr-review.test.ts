// Runs the pr-review config dir in a real gateway: the real pull_request fixture, signed, goes in; the stand-in
// `gh` must be asked to comment on the right pull request with what the (stand-in) agent answered.
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { githubFixture, signGithub, startTestGateway, type TestGateway } from '@hookwise/testing';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

const EXAMPLE_DIR = join(TEST_DIR, '..');
const SECRET = 'pr-review-example-secret-0123456789';

let work: string;
let gateway: TestGateway | undefined;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'hookwise-pr-review-'));
});
afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
  rmSync(work, { recursive: true, force: true });
});

/** A copy of the example with `gh` and the agent replaced by stand-ins; returns the copy's config.yaml text. */
function prepareConfigDir(): { configDir: string; config: string; calls: string } {
  const configDir = join(work, 'home');
  cpSync(EXAMPLE_DIR, configDir, { recursive: true, filter: (src) => !src.startsWith(join(EXAMPLE_DIR, 'test')) });
  const calls = join(work, 'gh-calls');
  // Records argv and stdin like a spy, prints the comment URL like the real client.
  const gh = join(work, 'gh');
  writeFileSync(
    gh,
    `#!${process.execPath}
const { writeFileSync } = require('node:fs');
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', () => {
  writeFileSync(${JSON.stringify(calls)}, JSON.stringify({ argv: process.argv.slice(2), stdin: Buffer.concat(chunks).toString('utf8') }));
  console.log('https://github.example/' + process.argv[6] + '/pull/' + process.argv[4] + '#issuecomment-1');
});
`,
  );
  chmodSync(gh, 0o755);
  // The agent: answers with exactly what it was given on stdin.
  const agent = join(work, 'echo-agent.js');
  writeFileSync(agent, 'process.stdin.pipe(process.stdout);\n');

  const doc = parseDocument(readFileSync(join(configDir, 'config.yaml'), 'utf8'));
  doc.setIn(['platforms', 'github_comment', 'cli_path'], gh);
  doc.setIn(['agent', 'command'], [process.execPath, agent]);
  // The review waits for the coalescing window (5 minutes in the example); a tenth of a second here.
  doc.setIn(['platforms', 'webhook', 'extra', 'routes', 'pr-review', 'coalesce', 'window_seconds'], 0.1);
  return { configDir, config: doc.toString(), calls };
}

function testEnv(): NodeJS.ProcessEnv {
  return { ...process.env, WEBHOOK_PORT: '', WEBHOOK_SECRET: '', WEBHOOK_ENABLED: '', WEBHOOK_HOST: '', PR_REVIEW_SECRET: SECRET };
}

describe('examples/pr-review', () => {
  it('comments on the pull request with gh, with the skill and the rendered prompt the agent saw', async () => {
    const { configDir, config, calls } = prepareConfigDir();
    gateway = await startTestGateway({ configDir, config, env: testEnv(), pollMs: 20 });
    const body = githubFixture('pull_request.opened');
    const res = await gateway.post('pr-review', body, {
      'X-GitHub-Event': 'pull_request',
      'X-GitHub-Delivery': 'pr-review-example-1',
      'X-Hub-Signature-256': signGithub(SECRET, body),
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'accepted', route: 'pr-review', event: 'pull_request', delivery_id: 'pr-review-example-1' });

    await gateway.waitForLog("delivered pr-review-example-1 on route 'pr-review' via github_comment");
    expect(existsSync(calls)).toBe(true);
    const call = JSON.parse(readFileSync(calls, 'utf8')) as { argv: string[]; stdin: string };
    expect(call.argv).toEqual(['pr', 'comment', '2', '--repo', 'Codertocat/Hello-World', '--body-file', '-']);

    // The echo agent's answer is its input: the code-review skill, then the rendered prompt.
    const skill = readFileSync(join(configDir, 'skills/code-review/SKILL.md'), 'utf8').split('---\n')[2].trim();
    expect(call.stdin).toContain('<skill name="code-review">');
    expect(call.stdin).toContain(skill);
    expect(call.stdin).toContain('Review pull request #2 in Codertocat/Hello-World: "Update the README with new information."');
    expect(call.stdin).toContain('It merges changes (ec26c3e57ca3a959ca5aad62de7213c562f8c821) into master:');
    expect(call.stdin).toContain('This is a pretty simple change that we need to pull into master.');
    expect(call.stdin).toContain('`gh pr diff 2 --repo Codertocat/Hello-World`');
    expect(call.stdin).not.toMatch(/\{pull_request\.|\{repository\./);
  });

  it('ignores other events sent to the same hook and refuses unsigned requests', async () => {
    const { configDir, config } = prepareConfigDir();
    gateway = await startTestGateway({ configDir, config, env: testEnv() });
    const push = Buffer.from(JSON.stringify({ ref: 'refs/heads/main' }));
    const ignored = await gateway.post('pr-review', push, { 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': signGithub(SECRET, push) });
    expect([ignored.status, ignored.body]).toEqual([200, { status: 'ignored', event: 'push' }]);
    const unsigned = await gateway.post('pr-review', githubFixture('pull_request.opened'), { 'X-GitHub-Event': 'pull_request' });
    expect([unsigned.status, unsigned.body]).toEqual([401, { error: 'Missing signature' }]);
  });
});
