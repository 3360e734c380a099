// The Matrix and GitHub reply readers (issue 31) on the platforms' own payload shapes: what a reply answers, who
// wrote it, and the payloads that answer nothing (edits, other relations, bots, comments other than created).
import { githubReplyOf, matrixReplyOf } from '../../src/ingest/conversation-replies';

const matrixEvent = (relates: unknown, extra: Record<string, unknown> = {}) => ({
  events: [
    { type: 'm.room.member', room_id: '!r:example.org', sender: '@a:example.org', content: { membership: 'join' } },
    {
      type: 'm.room.message',
      room_id: '!r:example.org',
      sender: '@a:example.org',
      event_id: '$e',
      content: { msgtype: 'm.text', body: 'hi', 'm.relates_to': relates },
      ...extra,
    },
  ],
});

describe('matrixReplyOf', () => {
  it('reads a rich reply and a thread message, the quoted fallback left out', () => {
    expect(matrixReplyOf(matrixEvent({ 'm.in_reply_to': { event_id: '$a1' } }))).toEqual({
      to: { platform: 'matrix', chat: '!r:example.org', messageId: '$a1' },
      userId: '@a:example.org',
      from: 'Matrix user @a:example.org',
      text: 'hi',
    });
    const thread = matrixReplyOf(matrixEvent({ rel_type: 'm.thread', event_id: '$root', 'm.in_reply_to': { event_id: '$last' } }));
    expect(thread?.to.messageId).toBe('$root');
    const quoted = {
      events: [
        {
          ...matrixEvent({ 'm.in_reply_to': { event_id: '$a1' } }).events[1],
          content: { body: '> <@b:x> old\n> more\n\nnew text', 'm.relates_to': { 'm.in_reply_to': { event_id: '$a1' } } },
        },
      ],
    };
    expect(matrixReplyOf(quoted)?.text).toBe('new text');
  });

  it('answers nothing for edits, annotations, plain messages and other shapes', () => {
    expect(matrixReplyOf(matrixEvent({ rel_type: 'm.replace', event_id: '$a1' }))).toBeUndefined();
    expect(matrixReplyOf(matrixEvent({ rel_type: 'm.annotation', event_id: '$a1', key: '👍' }))).toBeUndefined();
    expect(matrixReplyOf(matrixEvent(undefined))).toBeUndefined();
    expect(matrixReplyOf({ events: 'nope' })).toBeUndefined();
    expect(matrixReplyOf({})).toBeUndefined();
  });
});

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
