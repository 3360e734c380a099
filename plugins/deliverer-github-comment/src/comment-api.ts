// Creating and editing one issue or pull-request comment over GitHub's REST API, by either way the deliverer talks
// to GitHub: the REST client (token or App) or `gh api` (the gh CLI's own login). Pull requests take issue
// comments on their number, so neither needs to know which one the number is. A reply in a review thread goes
// through "Create a reply for a review comment" (POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies,
// body `{body}`; the comment id is the thread's top-level comment, as GitHub takes no reply to a reply).
import { HookwiseError } from '@hookwise/core';
import { runProcess, type ProcessResult } from '@hookwise/kit';
import { githubFailure, type GithubClient, type InstallationRef } from './github-client';

export interface PostedComment {
  id: string;
  url: string;
}

/** The comment to edit is gone (deleted by a person): the caller creates a new one. */
export class CommentGone extends Error {}

export interface CommentApi {
  create(repo: string, number: number, body: string, signal: AbortSignal): Promise<PostedComment>;
  /** Throws CommentGone when GitHub answers 404. */
  edit(repo: string, commentId: string, body: string, signal: AbortSignal): Promise<PostedComment>;
  /** A reply in the review thread of top-level review comment `commentId` on pull request `number`. */
  reply(repo: string, number: number, commentId: string, body: string, signal: AbortSignal): Promise<PostedComment>;
}

const ownerAndName = (repo: string) => {
  const [owner, name] = repo.split('/');
  return { owner, repo: name };
};

const posted = (data: unknown): PostedComment => {
  const comment = data as { id?: unknown; html_url?: unknown };
  return { id: String(comment.id ?? ''), url: String(comment.html_url ?? '') };
};

/** Comments through the REST client; `as` says which App installation acts (ignored in token mode). */
export function restCommentApi(client: GithubClient, as: InstallationRef, name: string): CommentApi {
  return {
    async create(repo, number, body, signal) {
      try {
        const answer = await client.request(
          'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
          { ...ownerAndName(repo), issue_number: number, body },
          { ...as, signal },
        );
        return posted(answer.data);
      } catch (err) {
        throw githubFailure(err, `commenting on ${repo}#${number}`, name);
      }
    },
    async edit(repo, commentId, body, signal) {
      try {
        const answer = await client.request(
          'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
          { ...ownerAndName(repo), comment_id: Number(commentId), body },
          { ...as, signal },
        );
        return posted(answer.data);
      } catch (err) {
        if ((err as { status?: number }).status === 404) throw new CommentGone(`comment ${commentId} on ${repo} is gone`);
        throw githubFailure(err, `editing comment ${commentId} on ${repo}`, name);
      }
    },
    async reply(repo, number, commentId, body, signal) {
      try {
        const answer = await client.request(
          'POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies',
          { ...ownerAndName(repo), pull_number: number, comment_id: Number(commentId), body },
          { ...as, signal },
        );
        return posted(answer.data);
      } catch (err) {
        throw githubFailure(err, `replying to review comment ${commentId} on ${repo}#${number}`, name);
      }
    },
  };
}

export interface GhApiOptions {
  cli: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Turns a failed run into the deliverer's error (explainFailure), for `what` on `target`. */
  explain(result: ProcessResult, target: string): HookwiseError;
  /** Turns a failure to start the client into the deliverer's error. */
  cannotStart(err: NodeJS.ErrnoException): HookwiseError;
}

/** Comments through `gh api` (its own login, GH_TOKEN or `gh auth login`), the JSON body on stdin. */
export function ghCommentApi(options: GhApiOptions): CommentApi {
  const call = async (method: 'POST' | 'PATCH', path: string, body: string, signal: AbortSignal): Promise<ProcessResult> => {
    const args = ['api', '--method', method, '-H', 'Accept: application/vnd.github+json', path, '--input', '-'];
    try {
      return await runProcess({ command: options.cli, args, env: options.env, input: JSON.stringify({ body }), timeoutMs: options.timeoutMs, signal });
    } catch (err) {
      throw options.cannotStart(err as NodeJS.ErrnoException);
    }
  };
  const parse = (result: ProcessResult): PostedComment => {
    try {
      return posted(JSON.parse(result.stdout));
    } catch {
      throw new HookwiseError('HW_E_DELIVERY', `github_comment: 'gh api' printed no comment JSON: ${result.stdout.slice(0, 200)}`, { retryable: true });
    }
  };
  return {
    async create(repo, number, body, signal) {
      const result = await call('POST', `repos/${repo}/issues/${number}/comments`, body, signal);
      if (result.exitCode !== 0) throw options.explain(result, `${repo}#${number}`);
      return parse(result);
    },
    async edit(repo, commentId, body, signal) {
      const result = await call('PATCH', `repos/${repo}/issues/comments/${commentId}`, body, signal);
      if (result.exitCode !== 0) {
        if (/HTTP 404|Not Found/i.test(result.stderr)) throw new CommentGone(`comment ${commentId} on ${repo} is gone`);
        throw options.explain(result, `${repo} comment ${commentId}`);
      }
      return parse(result);
    },
    async reply(repo, number, commentId, body, signal) {
      const result = await call('POST', `repos/${repo}/pulls/${number}/comments/${commentId}/replies`, body, signal);
      if (result.exitCode !== 0) throw options.explain(result, `${repo}#${number} review comment ${commentId}`);
      return parse(result);
    },
  };
}
