// The GitHub reply reader (issue 31, Source.replyOf) on GitHub's issue_comment (created) payload on a pull request
// (octokit/webhooks' example with the issue's pull_request object, @hookwise/testing's fixtures/github): what a
// comment answers (its pull request), who wrote it, and the payloads that answer nothing (bots, Apps, edits,
// deletions, other events).
import { githubFixture, githubReviewThreadReply } from '@hookwise/testing';
import { githubReplyOf, githubSource } from '../../src';

interface Payload extends Record<string, unknown> {
  action: string;
  comment: { user: Record<string, unknown> } & Record<string, unknown>;
}
const onPullRequest = (): Payload => JSON.parse(githubFixture('issue_comment.created.pull_request').toString('utf8')) as Payload;
const byUser = (user: Record<string, unknown>, action = 'created'): Payload => {
  const payload = onPullRequest();
  payload.action = action;
  Object.assign(payload.comment.user, user);
  return payload;
};

describe('githubReplyOf', () => {
  it("reads the documented comment on the pull request, with the login, the association and the comment's URL", () => {
    expect(githubReplyOf(onPullRequest())).toEqual({
      to: { platform: 'github', chat: 'codertocat/hello-world', messageId: '1' },
      userId: 'Codertocat',
      alsoAllowedAs: ['association:OWNER'],
      own: { platform: 'github', chat: 'codertocat/hello-world', messageId: 'https://github.com/Codertocat/Hello-World/pull/1#issuecomment-492700400' },
      from: 'GitHub user Codertocat (OWNER)',
      text: "You are totally right! I'll get this fixed right away.",
    });
  });

  it('reads a reply in a review thread as answering the pull request, in the thread of its top-level comment', () => {
    const reply = githubReviewThreadReply({
      repo: 'Codertocat/Hello-World',
      number: 2,
      commentId: 284312640,
      inReplyTo: 284312630,
      login: 'monalisa',
      association: 'MEMBER',
      body: 'why here?',
    });
    expect(githubReplyOf(reply)).toEqual({
      to: { platform: 'github', chat: 'codertocat/hello-world', messageId: '2', thread: '284312630' },
      userId: 'monalisa',
      alsoAllowedAs: ['association:MEMBER'],
      own: { platform: 'github', chat: 'codertocat/hello-world', messageId: 'https://github.com/Codertocat/Hello-World/pull/2#discussion_r284312640' },
      from: 'GitHub user monalisa (MEMBER)',
      text: 'why here?',
    });
    // A new top-level review comment replies to nothing; a bot's reply in a thread continues nothing.
    expect(githubReplyOf({ ...reply, comment: { ...(reply.comment as object), in_reply_to_id: undefined } })).toBeUndefined();
    const byBot = githubReviewThreadReply({
      repo: 'o/r',
      number: 2,
      commentId: 3,
      inReplyTo: 1,
      login: 'hookwise[bot]',
      type: 'Bot',
      association: 'NONE',
      body: 'x',
    });
    expect(githubReplyOf(byBot)).toBeUndefined();
  });

  it('answers nothing for bots, Apps, edits and deletions, and payloads without a comment', () => {
    expect(githubReplyOf(byUser({ login: 'ci', type: 'Bot' }))).toBeUndefined();
    expect(githubReplyOf(byUser({ login: 'hookwise[bot]' }))).toBeUndefined();
    expect(githubReplyOf(byUser({}, 'edited'))).toBeUndefined();
    expect(githubReplyOf(byUser({}, 'deleted'))).toBeUndefined();
    expect(githubReplyOf({ action: 'opened', pull_request: { number: 7 }, repository: { full_name: 'o/r' } })).toBeUndefined();
  });
});

describe('the github source', () => {
  it('offers its reply reader to the gateway', () => {
    expect(githubSource.create().replyOf).toBe(githubReplyOf);
  });
});
