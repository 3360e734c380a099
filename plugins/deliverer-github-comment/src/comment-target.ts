// Which pull request or issue a comment goes to: deliver_extra.repo, deliver_extra.pr_number and the optional
// deliver_extra.kind, checked strictly before any process starts (they come from webhook payloads, i.e. from strangers).
import { HookwiseError } from '@hookwise/core';

export const REPO_PATTERN = /^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/;

/** What the client comments on: `gh pr comment` or `gh issue comment`. */
export type CommentKind = 'pr' | 'issue';
/** The values of deliver_extra.kind; `auto` (the default) decides from the event, see {@link planComment}. */
export const COMMENT_KIND_OPTIONS = ['auto', 'pr', 'issue'] as const;
export type CommentKindOption = (typeof COMMENT_KIND_OPTIONS)[number];

export interface CommentTarget {
  repo: string;
  /** The pull request or issue number (deliver_extra.pr_number; GitHub numbers both alike). */
  prNumber: number;
  kind: CommentKindOption;
  /**
   * deliver_extra.review_comment_id (set by the conversation facet for a reply in a review thread): the answer is a
   * reply in the thread of that top-level review comment, not a comment on the pull request.
   */
  reviewCommentId?: string;
}

export interface CommentPlan {
  /** The kind to comment with first. */
  kind: CommentKind;
  /** Whether the client answering that the number is not a pull request means: comment on the issue instead. */
  issueIfNotPullRequest: boolean;
}

const isKindOption = (value: string): value is CommentKindOption => (COMMENT_KIND_OPTIONS as readonly string[]).includes(value);

export function resolveCommentTarget(extra: Record<string, string> | undefined): CommentTarget {
  const repo = extra?.repo?.trim() ?? '';
  const pr = extra?.pr_number?.trim() ?? '';
  const kind = extra?.kind?.trim().toLowerCase() || 'auto';
  const problems: string[] = [];
  if (!repo) problems.push('deliver_extra.repo is missing (e.g. repo: "{repository.full_name}")');
  else if (!REPO_PATTERN.test(repo) || repo.split('/').some((part) => part === '.' || part === '..')) {
    problems.push(`deliver_extra.repo must look like owner/name, got ${JSON.stringify(repo.slice(0, 100))}`);
  }
  if (!pr) problems.push('deliver_extra.pr_number is missing: the pull request or issue number (e.g. pr_number: "{pull_request.number}" or "{issue.number}")');
  else if (!/^[1-9][0-9]{0,9}$/.test(pr)) problems.push(`deliver_extra.pr_number must be a positive integer, got ${JSON.stringify(pr.slice(0, 100))}`);
  const review = extra?.review_comment_id?.trim() || undefined;
  if (review !== undefined && !/^[1-9][0-9]{0,19}$/.test(review))
    problems.push(`deliver_extra.review_comment_id must be a review comment's id (a positive integer), got ${JSON.stringify(review.slice(0, 100))}`);
  if (!isKindOption(kind))
    problems.push(`deliver_extra.kind must be one of ${COMMENT_KIND_OPTIONS.join(', ')}, got ${JSON.stringify(extra?.kind?.slice(0, 100))}`);
  if (problems.length || !isKindOption(kind)) {
    throw new HookwiseError(
      'HW_E_DELIVERY_TARGET',
      `github_comment: ${problems.join('; ')} (after templating; a "{...}" left in place means the payload lacks that key)`,
      { retryable: false },
    );
  }
  return { repo, prNumber: Number(pr), kind, ...(review ? { reviewCommentId: review } : {}) };
}

/**
 * How to comment for a kind option and an event type. `pr` and `issue` are taken as given. `auto`: an `issues`
 * event is about an issue; any other event (pull_request*, issue_comment, which GitHub also sends for comments
 * on pull requests, or a non-code-host event) tries the pull request first and, when the client answers that the
 * number is not a pull request, comments on the issue.
 */
export function planComment(kind: CommentKindOption, event: string): CommentPlan {
  if (kind !== 'auto') return { kind, issueIfNotPullRequest: false };
  if (event === 'issues') return { kind: 'issue', issueIfNotPullRequest: false };
  return { kind: 'pr', issueIfNotPullRequest: true };
}
