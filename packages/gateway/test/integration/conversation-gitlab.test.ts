// Conversations on GitLab (issue 31), end to end through a real gateway: a route on the GitLab source answers a
// Merge Request Hook with a note through gitlab_comment, against a stand-in speaking GitLab's Notes API (POST
// /api/v4/projects/:id/merge_requests/:iid/notes answered 201 with the note, GET /api/v4/user); a Note Hook on
// that merge request, as GitLab posts it (X-Gitlab-Token, X-Gitlab-Event: Note Hook, the "Comment on a merge
// request" payload of GitLab's webhook events documentation), by an allowed person (username or user id) runs the
// route again with the earlier turns, and the answer goes onto the same merge request. A stranger, a system note,
// the gateway's own note coming back, and a comment on the ISSUE of the same iid continue nothing of it.
import { expectInOrder, type RecordedRequest, type RecordingServer } from '@hookwise/testing';
import { conversationHarness } from './conversation-harness';

jest.setTimeout(60_000);

const SECRET = 'conversation-gitlab-webhook-token-0123456789';
const GL_TOKEN = 'glpat-conversation-e2e-0123456789';
const PROJECT = { id: 5, path: 'Gitlab-Org/Gitlab-Test' };
const NOTES = `/api/v4/projects/${encodeURIComponent(PROJECT.path)}/merge_requests/1/notes`;

const conv = conversationHarness('gitlab');
let api: RecordingServer;
let hookN = 0;
let noteN = 1300;

const notes = () => api.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/notes'));
const noteBody = (r: RecordedRequest) => (r.json as { body: string }).body;
const delivered = () => conv.delivered('review');

function postGitlab(event: string, payload: Record<string, unknown>) {
  hookN += 1;
  return conv.gw.post('review', JSON.stringify(payload), {
    'content-type': 'application/json',
    'user-agent': 'GitLab/17.6.0',
    'x-gitlab-event': event,
    'x-gitlab-token': SECRET,
    'x-gitlab-event-uuid': `13792a34-cac6-4fda-95a8-${String(hookN).padStart(12, '0')}`,
    'x-gitlab-instance': 'https://gitlab.example.com',
  });
}

const user = (username: string, id: number, name: string) => ({ id, name, username, avatar_url: null, email: '[REDACTED]' });
const project = {
  id: PROJECT.id,
  name: 'Gitlab Test',
  web_url: `http://example.com/${PROJECT.path}`,
  namespace: 'Gitlab Org',
  path_with_namespace: PROJECT.path,
  default_branch: 'master',
};

/** A Merge Request Hook (action open) for !1, shortened from GitLab's documented example. */
const mergeRequestOpened = () =>
  postGitlab('Merge Request Hook', {
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: user('root', 1, 'Administrator'),
    project,
    object_attributes: { id: 99, iid: 1, title: 'MS-Viewport', state: 'opened', action: 'open', source_branch: 'ms-viewport', target_branch: 'master' },
    labels: [],
    changes: {},
  });

/** A Note Hook: "Comment on a merge request" (or "Comment on an issue"), as GitLab's webhook events docs show it. */
function comment(who: ReturnType<typeof user>, text: string, opts: { on?: 'mr' | 'issue'; noteId?: number; system?: boolean } = {}) {
  const on = opts.on ?? 'mr';
  const id = opts.noteId ?? 5000 + hookN;
  return postGitlab('Note Hook', {
    object_kind: 'note',
    event_type: 'note',
    user: who,
    project_id: PROJECT.id,
    project,
    object_attributes: {
      id,
      internal: false,
      note: text,
      noteable_type: on === 'mr' ? 'MergeRequest' : 'Issue',
      author_id: who.id,
      created_at: '2015-05-17 18:21:36 UTC',
      project_id: PROJECT.id,
      commit_id: '',
      noteable_id: on === 'mr' ? 99 : 92,
      system: opts.system ?? false,
      action: 'create',
      url: `http://example.com/${PROJECT.path}/${on === 'mr' ? 'merge_requests' : 'issues'}/1#note_${id}`,
    },
    ...(on === 'mr'
      ? { merge_request: { id: 99, iid: 1, title: 'MS-Viewport', state: 'opened' } }
      : { issue: { id: 92, iid: 1, title: 'test', state: 'opened' } }),
  });
}

beforeAll(async () => {
  api = await conv.startApi((req) => {
    if (req.path === '/api/v4/user') return { json: { id: 77, username: 'hookwise-reviewer' } };
    noteN += 1;
    return { status: 201, json: { id: noteN, body: (req.json as { body: string }).body, noteable_type: 'MergeRequest', noteable_iid: 1, system: false } };
  });
  await conv.start({
    platforms: {
      gitlab_comment: { enabled: true, token: GL_TOKEN, api_base: api.url, timeout_seconds: 10 },
      webhook: {
        enabled: true,
        extra: {
          routes: {
            review: {
              source: 'gitlab',
              secret: SECRET,
              // Only merge requests start a conversation; a note continues one without being a wanted event.
              events: ['Merge Request Hook'],
              prompt: 'Review !{object_attributes.iid}: {object_attributes.title}',
              deliver: 'gitlab_comment',
              deliver_extra: { project: '{project.path_with_namespace}', merge_request_iid: '{object_attributes.iid}' },
              conversation: { enabled: true, allow_from: ['alice', '1'] },
            },
          },
        },
      },
    },
    agent: conv.agent,
    retry: { max_attempts: 1 },
    store: { backend: 'memory' },
  });
});

it('continues a conversation from a comment on the merge request, answering on the same merge request', async () => {
  expect((await mergeRequestOpened()).status).toBe(202);
  await conv.waitFor('the first answer', () => delivered() === 1);
  expect(notes().map((r) => r.path)).toEqual([NOTES]);
  expect(notes()[0].headers['private-token']).toBe(GL_TOKEN);
  expect(noteBody(notes()[0])).toBe('ECHO[Review !1: MS-Viewport]');

  // A comment by a username allow_from names continues it; the answer is one more note on !1.
  const reply = await comment(user('alice', 42, 'Alice'), 'why this change?');
  expect(reply.status).toBe(202);
  expect(reply.body).toMatchObject({ status: 'accepted', route: 'review', turn: 2 });
  await conv.waitFor('the answer to the comment', () => delivered() === 2);
  expect(notes()[1].path).toBe(NOTES);
  const second = noteBody(notes()[1]);
  expectInOrder(second, ['Review !1: MS-Viewport', 'ECHO[Review !1: MS-Viewport]', 'why this change?']);
  expect(second).toContain('GitLab user alice (Alice)');

  // A user id allow_from names continues it too (turn 3).
  const byId = await comment(user('root', 1, 'Administrator'), 'and the tests?');
  expect(byId.body).toMatchObject({ status: 'accepted', turn: 3 });
  await conv.waitFor('the third answer', () => delivered() === 3);
  expect(notes()[2].path).toBe(NOTES);
  expect(noteBody(notes()[2])).toContain('and the tests?');
});

it("continues nothing for a stranger, a system note, the gateway's own note, or the issue of the same iid", async () => {
  const before = notes().length;
  const stranger = await comment(user('drive-by', 999, 'Drive By'), 'me too');
  expect(stranger.status).toBe(200);
  expect(stranger.body).toMatchObject({ status: 'ignored', reason: 'conversation_not_allowed' });
  expect(conv.gw.logText()).toContain("user drive-by is not in conversation.allow_from of route 'review'");

  // "alice approved this merge request": a system note is no reply, and Note Hook is not a wanted event here
  // (answered as any unwanted event: ignored, no reason).
  const system = await comment(user('alice', 42, 'Alice'), 'approved this merge request', { system: true });
  expect([system.status, system.body]).toEqual([200, { status: 'ignored', event: 'Note Hook' }]);

  // The gateway's first note (id 1301), posted with a person's token, coming back as a Note Hook.
  const own = await comment(user('alice', 42, 'Alice'), 'ECHO[Review !1: MS-Viewport]', { noteId: 1301 });
  expect(own.body).toMatchObject({ status: 'ignored', reason: 'conversation_own_message' });

  // Issue #1 is not merge request !1: a comment there answers no conversation of the gateway's.
  const issue = await comment(user('alice', 42, 'Alice'), 'unrelated issue comment', { on: 'issue' });
  expect([issue.status, issue.body]).toEqual([200, { status: 'ignored', event: 'Note Hook' }]);

  await new Promise((r) => setTimeout(r, 500));
  expect(notes().length).toBe(before);
  expect(delivered()).toBe(3);
});
