// gitlab_comment's conversation facet (issue 31) on real receipts from the Notes API stand-in: a merge request's
// and an issue's notes are recorded apart (mr:<iid>, issue:<iid>) under the project path lower-cased, with each
// note (note:<id>) so that the gateway's own note coming back as a Note Hook is known; and the answer to a reply
// is sent to the same merge request or issue, whatever the route's deliver_extra named for the first event.
import type { DeliveryMessage } from '@hookwise/core';
import { createTestPluginContext } from '@hookwise/testing';
import { createGitlabCommentDeliverer, gitlabConversation } from '../../src';
import { startGitlabStandIn, type GitlabStandIn } from '../gitlab-stand-in';

const TOKEN = 'glpat-conversation-test-token-0123';
const PROJECT = { id: 42, path: 'Acme/Platform/API' };

let gitlab: GitlabStandIn;
beforeEach(async () => {
  gitlab = await startGitlabStandIn({ token: TOKEN, project: PROJECT });
});
afterEach(() => gitlab.close());

const message = (extra: Record<string, string>, text = 'ECHO'): DeliveryMessage => ({
  text,
  route: 'review',
  event: 'Note Hook',
  deliveryId: `d-${Math.random()}`,
  extra,
  destination: 'gitlab_comment',
});
const options = { signal: new AbortController().signal, attempt: 1 };
const deliverer = () => createGitlabCommentDeliverer({ token: TOKEN, api_base: gitlab.url, timeout_seconds: 5 }, createTestPluginContext().ctx);

describe('gitlab_comment conversation facet', () => {
  it('is offered by the deliverer, on platform gitlab, keyed by message id (not by chat)', () => {
    expect(deliverer().conversation).toBe(gitlabConversation);
    expect(gitlabConversation.platform).toBe('gitlab');
    expect(gitlabConversation.byChat).toBeUndefined();
  });

  it("records a merge request's and an issue's notes apart, with each note id", async () => {
    const d = deliverer();
    const mr = await d.deliver(message({ project: PROJECT.path, merge_request_iid: '3' }), options);
    const issue = await d.deliver(message({ project: PROJECT.path, issue_iid: '3' }), options);
    const chat = 'acme/platform/api';
    expect(gitlabConversation.sentRefs!(mr as { target: string; ids: string[] })).toEqual({
      chat: 'Acme/Platform/API!3',
      refs: [
        { platform: 'gitlab', chat, messageId: 'mr:3' },
        { platform: 'gitlab', chat, messageId: 'note:1000' },
      ],
    });
    expect(gitlabConversation.sentRefs!(issue as { target: string; ids: string[] })?.refs).toEqual([
      { platform: 'gitlab', chat, messageId: 'issue:3' },
      { platform: 'gitlab', chat, messageId: 'note:1001' },
    ]);
    expect(gitlabConversation.sentRefs!({ ids: ['1'] })).toBeUndefined();
  });

  it('sends the answer to a reply to the same merge request or issue, keeping the rest of deliver_extra', async () => {
    const chat = 'acme/platform/api';
    // The first event was a merge request hook; a reply on issue 17 of the project goes to issue 17.
    const routeExtra = { project: 'Acme/Platform/API', merge_request_iid: '{object_attributes.iid}', sticky: 'k' };
    const toIssue = gitlabConversation.replyExtra({ platform: 'gitlab', chat, messageId: 'issue:17' }, routeExtra);
    expect(toIssue).toEqual({ project: 'Acme/Platform/API', issue_iid: '17', sticky: 'k' });
    const toMr = gitlabConversation.replyExtra({ platform: 'gitlab', chat, messageId: 'mr:3' }, { project: '42', issue_iid: '9' });
    expect(toMr).toEqual({ project: chat, merge_request_iid: '3' });
    expect(gitlabConversation.replyExtra({ platform: 'gitlab', chat, messageId: 'note:5' }, routeExtra)).toBe(routeExtra);

    // The route's spelling of the path is kept (rendered from the Note Hook, it is GitLab's own).
    await deliverer().deliver(message(toIssue), options);
    expect(gitlab.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /api/v4/projects/Acme%2FPlatform%2FAPI/issues/17/notes']);
  });
});
