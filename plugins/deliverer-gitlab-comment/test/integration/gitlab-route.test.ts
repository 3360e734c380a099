// A GitLab route end to end through a real gateway: GitLab's merge request hook (the payload shape of GitLab's
// webhook docs, X-Gitlab-Token and X-Gitlab-Event) runs the agent, and the answer lands as a note on that merge
// request at a stand-in speaking GitLab's Notes API. One sticky note, created once (after a 502 that is retried) and
// edited by later pushes, also after a gateway restart on the same SQLite store; each run's prompt holds the head
// commit of the run before it ({__previous__...}).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestGateway, type TestGateway } from '@hookwise/testing';
import { startGitlabStandIn, type GitlabStandIn } from '../gitlab-stand-in';

const TOKEN = 'glpat-route-test-token-0123456789';
const HOOK_SECRET = 'gitlab-hook-secret-for-the-route-test';
const PROJECT = { id: 15, path: 'gitlab-org/gitlab-test' };

/** A merge request hook as GitLab's webhook docs show it (the fields a route reads, and some around them). */
function mergeRequestHook(sha: string, action: 'open' | 'update'): string {
  return JSON.stringify({
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: { id: 1, name: 'Administrator', username: 'root' },
    project: {
      id: PROJECT.id,
      name: 'Gitlab Test',
      web_url: 'http://example.com/gitlab-org/gitlab-test',
      namespace: 'GitlabHQ',
      path_with_namespace: PROJECT.path,
      default_branch: 'master',
    },
    repository: { name: 'Gitlab Test', url: 'http://example.com/gitlab-org/gitlab-test.git', homepage: 'http://example.com/gitlab-org/gitlab-test' },
    object_attributes: {
      id: 99,
      iid: 1,
      target_branch: 'master',
      source_branch: 'ms-viewport',
      source_project_id: PROJECT.id,
      target_project_id: PROJECT.id,
      title: 'MS-Viewport',
      state: 'opened',
      action,
      merge_status: 'unchecked',
      url: 'http://example.com/diaspora/merge_requests/1',
      last_commit: { id: sha, message: 'fixed readme', url: `http://example.com/gitlab-org/gitlab-test/commits/${sha}` },
    },
    labels: [],
    changes: {},
  });
}

const config = (apiBase: string) => ({
  platforms: {
    gitlab_comment: { enabled: true, token: TOKEN, api_base: apiBase },
    webhook: {
      enabled: true,
      extra: {
        routes: {
          'mr-review': {
            source: 'gitlab',
            secret: HOOK_SECRET,
            events: ['merge_request'],
            prompt: 'Review {object_attributes.title} at {object_attributes.last_commit.id}; reviewed before: {__previous__.object_attributes.last_commit.id}',
            deliver: 'gitlab_comment',
            deliver_extra: { project: '{project.path_with_namespace}', merge_request_iid: '{object_attributes.iid}', sticky: 'review' },
            concurrency_key: '{project.path_with_namespace}!{object_attributes.iid}',
          },
        },
      },
    },
  },
  agent: { runner: 'echo' },
  store: { backend: 'sqlite', path: 'hookwise.sqlite' },
  retry: { max_attempts: 3, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
});

let gitlab: GitlabStandIn;
let gw: TestGateway | undefined;
let dir: string;
beforeEach(async () => {
  gitlab = await startGitlabStandIn({ token: TOKEN, project: PROJECT });
  dir = mkdtempSync(join(tmpdir(), 'hookwise-gitlab-route-'));
});
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
  await gitlab.close();
  rmSync(dir, { recursive: true, force: true });
});

const start = () => startTestGateway({ config: config(gitlab.url), configDir: dir });
async function push(sha: string, action: 'open' | 'update', delivery: string): Promise<void> {
  const res = await gw!.post('mr-review', mergeRequestHook(sha, action), {
    'X-Gitlab-Token': HOOK_SECRET,
    'X-Gitlab-Event': 'Merge Request Hook',
    'Idempotency-Key': delivery,
  });
  expect(res.body).toMatchObject({ status: 'accepted', event: 'Merge Request Hook' });
}
async function noteSaying(text: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!gitlab.notes.some((n) => n.body.includes(text))) {
    if (Date.now() > deadline) throw new Error(`no note says ${text}; notes: ${JSON.stringify(gitlab.notes)}\n${gw?.logText()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const noteCalls = () => gitlab.requests.filter((r) => r.url.includes('/notes')).map((r) => `${r.method} ${r.url}`);

describe('a GitLab route answering on its merge request', () => {
  it('posts one sticky note (a 502 retried), edits it on later pushes and after a restart, each prompt naming the previous head', async () => {
    gw = await start();
    gitlab.failNext({ status: 502 });
    await push('b83d6e391c22777fca1ed3012fce84f633d7fed0', 'open', 'a1b2c3d4-0000-4000-8000-000000000001');
    await noteSaying('at b83d6e391c22777fca1ed3012fce84f633d7fed0');
    expect(gitlab.notes[0].body).toContain('reviewed before: {__previous__.object_attributes.last_commit.id}');

    await push('da1560886d4f094c3e6c9ef40349f7d38b5d27d7', 'update', 'a1b2c3d4-0000-4000-8000-000000000002');
    await noteSaying('reviewed before: b83d6e391c22777fca1ed3012fce84f633d7fed0');
    expect(gitlab.notes[0].body).toContain('at da1560886d4f094c3e6c9ef40349f7d38b5d27d7');

    await gw.stop();
    gw = await start();
    await push('0c4fe2b8e2e1b3f9c6a7d5e4f3a2b1c0d9e8f7a6', 'update', 'a1b2c3d4-0000-4000-8000-000000000003');
    await noteSaying('reviewed before: da1560886d4f094c3e6c9ef40349f7d38b5d27d7');

    const path = '/api/v4/projects/gitlab-org%2Fgitlab-test/merge_requests/1/notes';
    expect(noteCalls()).toEqual([`POST ${path}`, `POST ${path}`, `PUT ${path}/1000`, `PUT ${path}/1000`]);
    expect(gitlab.notes).toHaveLength(1);
    expect(gitlab.notes[0].body).toContain('at 0c4fe2b8e2e1b3f9c6a7d5e4f3a2b1c0d9e8f7a6');
    for (const req of gitlab.requests) expect(req.headers['private-token']).toBe(TOKEN);
    expect(gw.logText()).not.toContain(TOKEN);
  });
});
