// gitlab_comment against a local stand-in speaking GitLab's documented Notes API: the exact paths (the project path
// URL-encoded as one segment), the PRIVATE-TOKEN header, the JSON body, and how GitLab's failures are classified.
import { isHookwiseError, type DeliveryMessage, type HookwiseError } from '@hookwise/core';
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
    for (const extra of [
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
});
