// The GitLab reply reader (issue 31, Source.replyOf) on Note Hook payloads shaped as GitLab documents them: what a
// comment answers (its merge request or issue, told apart), who wrote it, the note itself, and the payloads that
// answer nothing (system notes, edits, bots, comments on commits, other hooks).
import { gitlabReplyOf, gitlabSource } from '../../src';
import { issueNote, mergeRequestNote } from '../fixtures/note-hooks';

describe('gitlabReplyOf', () => {
  it('reads a comment on a merge request: the project path lower-cased, mr:<iid>, the username and user id, the note id', () => {
    const payload = mergeRequestNote();
    (payload.project as Record<string, unknown>).path_with_namespace = 'GitLab-Org/GitLab-Test';
    expect(gitlabReplyOf(payload)).toEqual({
      to: { platform: 'gitlab', chat: 'gitlab-org/gitlab-test', messageId: 'mr:1' },
      userId: 'root',
      alsoAllowedAs: ['1'],
      own: { platform: 'gitlab', chat: 'gitlab-org/gitlab-test', messageId: 'note:1244' },
      from: 'GitLab user root (Administrator)',
      text: 'This MR needs work.',
    });
  });

  it('tells an issue from a merge request of the same iid', () => {
    const reply = gitlabReplyOf(issueNote());
    expect(reply?.to).toEqual({ platform: 'gitlab', chat: 'gitlab-org/gitlab-test', messageId: 'issue:17' });
    expect(reply?.own?.messageId).toBe('note:1241');
    expect(reply?.text).toBe('Hello world');
  });

  it('takes a note without `action` (GitLab before 16.11) as a new one', () => {
    const payload = mergeRequestNote();
    delete (payload.object_attributes as Record<string, unknown>).action;
    expect(gitlabReplyOf(payload)?.to.messageId).toBe('mr:1');
  });

  it('answers nothing for system notes, edits, bot users, commit or snippet comments and other hooks', () => {
    expect(gitlabReplyOf(mergeRequestNote({ note: { system: true } }))).toBeUndefined();
    expect(gitlabReplyOf(mergeRequestNote({ note: { action: 'update' } }))).toBeUndefined();
    expect(gitlabReplyOf(mergeRequestNote({ user: { username: 'project_5_bot_3f2a9c1de8b7a6f5' } }))).toBeUndefined();
    expect(gitlabReplyOf(issueNote({ user: { username: 'group_42_bot' } }))).toBeUndefined();
    expect(gitlabReplyOf(issueNote({ user: { username: 'service_account_group_42_7c1d' } }))).toBeUndefined();
    expect(gitlabReplyOf(mergeRequestNote({ note: { noteable_type: 'Commit' } }))).toBeUndefined();
    expect(gitlabReplyOf(mergeRequestNote({ note: { noteable_type: 'Snippet' } }))).toBeUndefined();
    expect(gitlabReplyOf({ object_kind: 'merge_request', object_attributes: { iid: 1 }, project: { path_with_namespace: 'a/b' }, user: {} })).toBeUndefined();
  });
});

describe('the gitlab source', () => {
  it('offers its reply reader to the gateway', () => {
    expect(gitlabSource.create().replyOf).toBe(gitlabReplyOf);
  });
});
