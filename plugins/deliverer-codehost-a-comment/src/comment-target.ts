// Which pull request a comment goes to: deliver_extra.repo and deliver_extra.pr_number, checked strictly
// before any process starts (they come from webhook payloads, i.e. from strangers).
import { HookwiseError } from '@hookwise/core';

export const REPO_PATTERN = /^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/;

export interface CommentTarget {
  repo: string;
  prNumber: number;
}

export function resolveCommentTarget(extra: Record<string, string> | undefined): CommentTarget {
  const repo = extra?.repo?.trim() ?? '';
  const pr = extra?.pr_number?.trim() ?? '';
  const problems: string[] = [];
  if (!repo) problems.push('deliver_extra.repo is missing (e.g. repo: "{repository.full_name}")');
  else if (!REPO_PATTERN.test(repo) || repo.split('/').some((part) => part === '.' || part === '..')) {
    problems.push(`deliver_extra.repo must look like owner/name, got ${JSON.stringify(repo.slice(0, 100))}`);
  }
  if (!pr) problems.push('deliver_extra.pr_number is missing (e.g. pr_number: "{pull_request.number}")');
  else if (!/^[1-9][0-9]{0,9}$/.test(pr)) problems.push(`deliver_extra.pr_number must be a positive integer, got ${JSON.stringify(pr.slice(0, 100))}`);
  if (problems.length) {
    throw new HookwiseError('HW_E_DELIVERY_TARGET', `codehost_a_comment: ${problems.join('; ')} (after templating; a "{...}" left in place means the payload lacks that key)`, { retryable: false });
  }
  return { repo, prNumber: Number(pr) };
}
