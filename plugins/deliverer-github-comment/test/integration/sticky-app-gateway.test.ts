// A real gateway (SQLite store, over HTTP) delivering to github_comment in App mode with a sticky key: three
// answers on one pull request make one comment, created once and edited twice (one edit answered 502 and retried);
// after a restart on the same SQLite file the fourth answer edits the same comment, with a newly minted token.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { signGithub, startTestGateway, type TestGateway } from '@hookwise/testing';
import { appKeyPair, startGithubStandIn, type GithubStandIn } from '../github-stand-in';

const APP_ID = '31337';
const INSTALLATION = 4242;
const SECRET = 'sticky-app-secret-0123456789';
const keys = appKeyPair();

const config = (apiBase: string) => ({
  agent: { runner: 'echo' },
  retry: { max_attempts: 3, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
  store: { backend: 'sqlite' },
  platforms: {
    github_comment: { app_id: APP_ID, private_key_file: 'app.pem', api_base: apiBase },
    webhook: {
      enabled: true,
      extra: {
        routes: {
          review: {
            secret: SECRET,
            source: 'github',
            events: ['pull_request'],
            prompt: 'Review of {pull_request.head.sha}',
            deliver: 'github_comment',
            deliver_extra: {
              repo: '{repository.full_name}',
              pr_number: '{pull_request.number}',
              installation_id: '{installation.id}',
              sticky: '{repository.full_name}#{pull_request.number}',
            },
          },
        },
      },
    },
  },
});

async function waitFor(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('github_comment sticky comments in App mode, through a real gateway', () => {
  let stand: GithubStandIn;
  let configDir: string;
  let gw: TestGateway | undefined;
  let n = 0;

  const push = async (sha: string) => {
    n += 1;
    const body = JSON.stringify({
      action: 'synchronize',
      installation: { id: INSTALLATION },
      repository: { full_name: 'octo-org/hello' },
      pull_request: { number: 7, head: { sha } },
    });
    const answer = await gw!.post('review', body, {
      'x-hub-signature-256': signGithub(SECRET, body),
      'x-github-event': 'pull_request',
      'x-github-delivery': `sticky-${process.pid}-${n}`,
    });
    expect(answer.status).toBe(202);
  };
  const calls = () => stand.requests.map((r) => `${r.method} ${r.path}`);
  const commentCalls = () => stand.requests.filter((r) => !r.path.startsWith('/app/'));

  beforeAll(async () => {
    stand = await startGithubStandIn({ publicKey: keys.publicKey, appId: APP_ID, installationId: INSTALLATION });
    configDir = mkdtempSync(path.join(tmpdir(), 'hookwise-sticky-app-'));
    writeFileSync(path.join(configDir, 'app.pem'), keys.privateKey, { mode: 0o600 });
  });
  afterAll(async () => {
    await gw?.stop();
    await stand.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('creates the comment once, edits it on later answers (a 502 retried), and again after a restart', async () => {
    gw = await startTestGateway({ config: config(stand.url), configDir });
    await push('aaa111');
    await waitFor('the first comment', () => stand.comments.size === 1);
    const [id] = [...stand.comments.keys()];
    await push('bbb222');
    await waitFor('the first edit', () => stand.comments.get(id)?.body === 'Review of bbb222');
    stand.failNext('PATCH', /\/issues\/comments\/\d+$/, 502);
    await push('ccc333');
    await waitFor('the second edit', () => stand.comments.get(id)?.body === 'Review of ccc333');
    expect(calls()).toEqual([
      `POST /app/installations/${INSTALLATION}/access_tokens`,
      'POST /repos/octo-org/hello/issues/7/comments',
      `PATCH /repos/octo-org/hello/issues/comments/${id}`,
      `PATCH /repos/octo-org/hello/issues/comments/${id}`,
      `PATCH /repos/octo-org/hello/issues/comments/${id}`,
    ]);
    expect(stand.minted).toEqual(['ghs_standin1']);

    await gw.stop();
    gw = await startTestGateway({ config: config(stand.url), configDir });
    await push('ddd444');
    await waitFor('the edit after the restart', () => stand.comments.get(id)?.body === 'Review of ddd444');
    expect(stand.comments.size).toBe(1);
    expect(calls().slice(5)).toEqual([`POST /app/installations/${INSTALLATION}/access_tokens`, `PATCH /repos/octo-org/hello/issues/comments/${id}`]);
    expect(stand.minted).toEqual(['ghs_standin1', 'ghs_standin2']);

    // Every comment call carried the installation token of its process and GitHub's documented headers.
    expect(commentCalls().map((r) => r.headers.authorization)).toEqual([
      'token ghs_standin1',
      'token ghs_standin1',
      'token ghs_standin1',
      'token ghs_standin1',
      'token ghs_standin2',
    ]);
    for (const r of stand.requests) {
      expect(r.headers.accept).toBe('application/vnd.github+json');
      expect(r.headers['x-github-api-version']).toBe('2022-11-28');
    }
    expect(commentCalls()[1].body).toEqual({ body: 'Review of bbb222' });
  });

  it('posts a new sticky comment when a person deleted the old one', async () => {
    const [id] = [...stand.comments.keys()];
    stand.comments.delete(id);
    const before = stand.requests.length;
    await push('eee555');
    await waitFor('a new comment', () => stand.comments.size === 1);
    expect(calls().slice(before)).toEqual([`PATCH /repos/octo-org/hello/issues/comments/${id}`, 'POST /repos/octo-org/hello/issues/7/comments']);
    const [newId] = [...stand.comments.keys()];
    await push('fff666');
    await waitFor('the new comment edited', () => stand.comments.get(newId)?.body === 'Review of fff666');
    expect(stand.comments.size).toBe(1);
  });
});
