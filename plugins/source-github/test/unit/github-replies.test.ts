// The GitHub reply reader (issue 31, Source.replyOf) on an issue_comment payload: what a comment answers (its pull
// request), who wrote it, and the payloads that answer nothing (bots, Apps, edits, deletions, other events).
import { githubReplyOf, githubSource } from '../../src';

const issueComment = (user: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  action: 'created',
  issue: { number: 7, pull_request: {} },
  comment: { id: 5, html_url: 'https://github.com/Octo/Hello/pull/7#issuecomment-5', body: 'why?', user, author_association: 'OWNER' },
  repository: { full_name: 'Octo/Hello' },
  ...extra,
});

describe('githubReplyOf', () => {
  it('reads a comment on the pull request, with the login, the association and the comment itself', () => {
    expect(githubReplyOf(issueComment({ login: 'monalisa', type: 'User' }))).toEqual({
      to: { platform: 'github', chat: 'octo/hello', messageId: '7' },
      userId: 'monalisa',
      alsoAllowedAs: ['OWNER'],
      own: { platform: 'github', chat: 'octo/hello', messageId: 'https://github.com/Octo/Hello/pull/7#issuecomment-5' },
      from: 'GitHub user monalisa (OWNER)',
      text: 'why?',
    });
  });

  it('answers nothing for bots, Apps, edits and deletions, and payloads without a comment', () => {
    expect(githubReplyOf(issueComment({ login: 'ci', type: 'Bot' }))).toBeUndefined();
    expect(githubReplyOf(issueComment({ login: 'hookwise[bot]', type: 'User' }))).toBeUndefined();
    expect(githubReplyOf(issueComment({ login: 'monalisa', type: 'User' }, { action: 'edited' }))).toBeUndefined();
    expect(githubReplyOf(issueComment({ login: 'monalisa', type: 'User' }, { action: 'deleted' }))).toBeUndefined();
    expect(githubReplyOf({ action: 'opened', pull_request: { number: 7 }, repository: { full_name: 'o/r' } })).toBeUndefined();
  });
});

describe('the github source', () => {
  it('offers its reply reader to the gateway', () => {
    expect(githubSource.create().replyOf).toBe(githubReplyOf);
  });
});
