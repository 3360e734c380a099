// gitlab_comment against a local stand-in speaking GitLab's documented Notes API: the exact paths (the project path
// URL-encoded as one segment), the PRIVATE-TOKEN header, the JSON body, and how GitLab's failures are classified.
import { isHookwiseError, type DeliveryMessage, type HookwiseError, type MemoKV } from '@hookwise/core';
import { createTestPluginContext } from '@hookwise/testing';
import { createGitlabCommentDeliverer, resolveNoteTarget } from '../../src';
import { startGitlabStandIn, type GitlabStandIn } from '../gitlab-stand-in';

const TOKEN = 'glpat-notes-test-token-abcdef0123';
const PROJECT = { id: 42, path: 'acme/platform/api' };

let gitlab: GitlabStandIn;
beforeEach(async () => {
  gitlab = await startGitlabStandIn({ token: TOKEN, project: PROJECT });
});
afterEach(() => gitlab.close());

const message = (extra: Record<string, string>, text = 'Looks good; one nit in `main.go`.'): DeliveryMessage => ({
  text,
  route: 'mr-review',
  event: 'Merge Request Hook',
  deliveryId: `d-${Math.random()}`,
  extra,
  destination: 'gitlab_comment',
});
const deliverer = (token = TOKEN) => {
  const test = createTestPluginContext();
  return { test, deliverer: createGitlabCommentDeliverer({ token, api_base: gitlab.url, timeout_seconds: 5 }, test.ctx) };
};
const options = { signal: new AbortController().signal, attempt: 1 };
async function failure(promise: Promise<unknown>): Promise<HookwiseError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isHookwiseError(err)).toBe(true);
  return err as HookwiseError;
}

describe('gitlab_comment', () => {
  it('posts a merge-request note: the encoded project path, the PRIVATE-TOKEN header and {body} as JSON', async () => {
    const { deliverer: d, test } = deliverer();
    await d.start?.();
    const receipt = await d.deliver(message({ project: PROJECT.path, merge_request_iid: '7' }), options);
    const notes = gitlab.requests.filter((r) => r.url !== '/api/v4/user');
    expect(notes.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /api/v4/projects/acme%2Fplatform%2Fapi/merge_requests/7/notes']);
    expect(notes[0].headers['private-token']).toBe(TOKEN);
    expect(notes[0].headers['content-type']).toBe('application/json');
    expect(notes[0].headers.authorization).toBeUndefined();
    expect(notes[0].json).toEqual({ body: 'Looks good; one nit in `main.go`.' });
    expect(receipt).toEqual({ target: 'acme/platform/api!7', ids: ['1000'] });
    expect(gitlab.notes).toMatchObject([{ id: 1000, noteable_type: 'MergeRequest', noteable_iid: 7 }]);
    expect(test.logs.join('\n')).not.toContain(TOKEN);
  });

  it('posts an issue note on a project given by numeric id, at a self-managed api_base ending in /api/v4', async () => {
    const test = createTestPluginContext();
    const d = createGitlabCommentDeliverer({ token: TOKEN, api_base: `${gitlab.url}/api/v4/`, timeout_seconds: 5 }, test.ctx);
    const receipt = await d.deliver(message({ project: '42', issue_iid: '3' }), options);
    expect(gitlab.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /api/v4/projects/42/issues/3/notes']);
    expect(receipt).toEqual({ target: '42#3', ids: ['1000'] });
  });

  it('refuses a rejected token at start and on delivery, without retry and without showing it', async () => {
    const { deliverer: d, test } = deliverer('glpat-wrong-token-999999');
    const atStart = await failure(d.start!());
    expect(atStart).toMatchObject({ code: 'HW_E_DELIVERY_AUTH', retryable: false });
    const err = await failure(d.deliver(message({ project: PROJECT.path, merge_request_iid: '7' }), options));
    expect(err).toMatchObject({ code: 'HW_E_DELIVERY_AUTH', retryable: false });
    expect(err.message).toMatch(/HTTP 401.*platforms\.gitlab_comment\.token/);
    expect(`${err.message}${atStart.message}${test.logs.join('')}`).not.toContain('glpat-wrong-token-999999');
  });

  it('names the target when GitLab does not know the project (404), without retry', async () => {
    const { deliverer: d } = deliverer();
    const err = await failure(d.deliver(message({ project: 'acme/other', merge_request_iid: '7' }), options));
    expect(err).toMatchObject({ code: 'HW_E_DELIVERY_TARGET', retryable: false });
    expect(err.message).toContain('acme/other!7 was not found');
  });

  it('retries a 502 and a 429 with the Retry-After GitLab sent', async () => {
    const { deliverer: d } = deliverer();
    gitlab.failNext({ status: 502 }, { status: 429, retryAfter: '12' });
    const bad = await failure(d.deliver(message({ project: PROJECT.path, merge_request_iid: '7' }), options));
    expect(bad).toMatchObject({ code: 'HW_E_DELIVERY', retryable: true });
    const limited = await failure(d.deliver(message({ project: PROJECT.path, merge_request_iid: '7' }), options));
    expect(limited).toMatchObject({ retryable: true, retryAfterSeconds: 12 });
    await d.deliver(message({ project: PROJECT.path, merge_request_iid: '7' }), options);
    expect(gitlab.notes).toHaveLength(1);
  });

  it('checks the target before any request: hostile paths and ids never reach GitLab', async () => {
    const { deliverer: d } = deliverer();
    for (const extra of <Array<Record<string, string>>>[
      { project: 'acme/../admin', merge_request_iid: '7' },
      { project: 'acme/api?x=1', merge_request_iid: '7' },
      { project: 'acme', merge_request_iid: '7' },
      { project: PROJECT.path, merge_request_iid: '7/../../1' },
      { project: PROJECT.path, merge_request_iid: '{object_attributes.iid}' },
      { project: PROJECT.path },
      { project: PROJECT.path, merge_request_iid: '7', issue_iid: '3' },
    ]) {
      const err = await failure(d.deliver(message(extra), options));
      expect(err).toMatchObject({ code: 'HW_E_DELIVERY_TARGET', retryable: false });
    }
    expect(gitlab.requests).toEqual([]);
    expect(resolveNoteTarget({ project: 'a.b/c-d_e', merge_request_iid: '12' })).toEqual({ project: 'a.b/c-d_e', kind: 'merge_request', iid: 12 });
  });

  it('sticky: the first answer creates the note, later ones for the same key edit it, also from a new deliverer on the same memos', async () => {
    const saved = new Map<string, string>();
    const memos: MemoKV = { get: async (k) => saved.get(k), set: async (k, v) => void saved.set(k, v), delete: async (k) => void saved.delete(k) };
    const build = () => {
      const test = createTestPluginContext();
      return createGitlabCommentDeliverer({ token: TOKEN, api_base: gitlab.url, timeout_seconds: 5 }, { ...test.ctx, memos });
    };
    const extra = { project: PROJECT.path, merge_request_iid: '7', sticky: 'acme/platform/api!7' };
    const first = await build().deliver(message(extra, 'Review of abc123'), options);
    const second = await build().deliver(message(extra, 'Review of def456'), options);
    // A deliverer made anew (a restarted gateway) finds the note through the memos.
    const third = await build().deliver(message(extra, 'Review of 789fed'), options);
    expect([first, second, third]).toEqual([
      { target: 'acme/platform/api!7', ids: ['1000'], sticky: 'created' },
      { target: 'acme/platform/api!7', ids: ['1000'], sticky: 'edited' },
      { target: 'acme/platform/api!7', ids: ['1000'], sticky: 'edited' },
    ]);
    expect(gitlab.requests.map((r) => `${r.method} ${r.url} ${JSON.stringify(r.json)}`)).toEqual([
      'POST /api/v4/projects/acme%2Fplatform%2Fapi/merge_requests/7/notes {"body":"Review of abc123"}',
      'PUT /api/v4/projects/acme%2Fplatform%2Fapi/merge_requests/7/notes/1000 {"body":"Review of def456"}',
      'PUT /api/v4/projects/acme%2Fplatform%2Fapi/merge_requests/7/notes/1000 {"body":"Review of 789fed"}',
    ]);
    expect(gitlab.notes.map((n) => n.body)).toEqual(['Review of 789fed']);
    // Another merge request, same key text: its own note, never an edit of the first one's.
    const other = await build().deliver(message({ ...extra, merge_request_iid: '8' }, 'Other MR'), options);
    expect(other).toMatchObject({ ids: ['1001'], sticky: 'created' });
    // The note deleted on GitLab: the next answer posts a new one and remembers it.
    gitlab.notes.splice(0, 1);
    const again = await build().deliver(message(extra, 'After deletion'), options);
    expect(again).toMatchObject({ ids: ['1002'], sticky: 'created' });
    expect(await build().deliver(message(extra, 'And edited'), options)).toMatchObject({ ids: ['1002'], sticky: 'edited' });
  });
});
