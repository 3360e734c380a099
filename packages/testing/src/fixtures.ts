// Real webhook payloads shipped with the testing kit (packages/testing/fixtures), as exact bytes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const FIXTURES_DIR = join(__dirname, '..', 'fixtures');

export type GithubFixture =
  | 'issue_comment.created'
  | 'issue_comment.created.pull_request'
  | 'issue_comment.rest'
  | 'issues.opened'
  | 'ping'
  | 'pull_request.opened'
  | 'push'
  | 'workflow_run.completed';

/** The bytes of a GitHub payload, e.g. `githubFixture('pull_request.opened')`. */
export function githubFixture(name: GithubFixture): Buffer {
  return readFileSync(join(FIXTURES_DIR, 'github', `${name}.json`));
}

/** What a reply in a pull request's review thread says (githubReviewThreadReply). */
export interface GithubReviewThreadReply {
  /** `owner/name`, as GitHub spells it. */
  repo: string;
  /** The pull request's number. */
  number: number;
  /** The new review comment's id. */
  commentId: number;
  /** The thread's top-level review comment (`comment.in_reply_to_id`); absent: a new top-level review comment. */
  inReplyTo?: number;
  login: string;
  /** `User` (default) or `Bot`. */
  type?: string;
  association: string;
  body: string;
}

/**
 * A `pull_request_review_comment` (action `created`) delivery as GitHub's webhook reference describes it: the review
 * comment (`id`, `in_reply_to_id` for a reply in a thread, `pull_request_review_id`, `user`, `body`,
 * `author_association`, `html_url` with `#discussion_r<id>`, `pull_request_url`, `path`, `diff_hunk`), the pull
 * request (`number`, `html_url`, `title`), the repository and the sender. Built field by field, only the ones a
 * reader of replies looks at and their neighbours.
 */
export function githubReviewThreadReply(r: GithubReviewThreadReply): Record<string, unknown> {
  const [owner] = r.repo.split('/');
  const user = { login: r.login, id: 21031067, type: r.type ?? 'User', site_admin: false, html_url: `https://github.com/${r.login}` };
  return {
    action: 'created',
    comment: {
      url: `https://api.github.com/repos/${r.repo}/pulls/comments/${r.commentId}`,
      pull_request_review_id: 237895671 + r.commentId,
      id: r.commentId,
      ...(r.inReplyTo !== undefined ? { in_reply_to_id: r.inReplyTo } : {}),
      diff_hunk: '@@ -1 +1 @@\n-# Hello-World',
      path: 'README.md',
      commit_id: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
      user,
      body: r.body,
      created_at: '2019-05-15T15:20:37Z',
      updated_at: '2019-05-15T15:20:38Z',
      html_url: `https://github.com/${r.repo}/pull/${r.number}#discussion_r${r.commentId}`,
      pull_request_url: `https://api.github.com/repos/${r.repo}/pulls/${r.number}`,
      author_association: r.association,
      line: 1,
      side: 'RIGHT',
    },
    pull_request: {
      url: `https://api.github.com/repos/${r.repo}/pulls/${r.number}`,
      html_url: `https://github.com/${r.repo}/pull/${r.number}`,
      number: r.number,
      state: 'open',
      title: 'Update the README with new information.',
      user: { login: owner, type: 'User' },
    },
    repository: { name: r.repo.split('/')[1], full_name: r.repo, private: false, owner: { login: owner, type: 'User' } },
    sender: user,
  };
}
