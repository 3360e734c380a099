// What a GitHub comment means for conversations. An `issue_comment` replies to no comment, so what a new comment
// (action `created`) answers is its pull request or issue (`owner/name` lower-cased, the number), where the
// github_comment deliverer records the gateway's answers. A `pull_request_review_comment` (created) that replies in
// a review thread (`comment.in_reply_to_id`, the thread's top-level comment: GitHub takes no reply to a reply)
// answers the pull request the same way, in that thread (MessageRef.thread), so that the answer goes back into the
// thread rather than under the pull request. Bots (`user.type` Bot, an App's `name[bot]` login) continue nothing;
// `own` names the comment itself, so that a comment the gateway posted with a person's token (the gh client) is
// recognised too. allow_from matches the login, or the `author_association` written as
// `association:MEMBER` (a GitHub login cannot hold a colon, so no user can be listed under an association's name).
import type { InboundReply, Source } from '@hookwise/core';
import { isPayloadObject, payloadId, payloadText } from '@hookwise/kit/source';

/** GitHub's author_association values (REST API, "author_association"): the groups allow_from takes as `association:<NAME>`. */
export const AUTHOR_ASSOCIATIONS = ['COLLABORATOR', 'CONTRIBUTOR', 'FIRST_TIMER', 'FIRST_TIME_CONTRIBUTOR', 'MANNEQUIN', 'MEMBER', 'NONE', 'OWNER'];

/** What the gateway refuses bare in allow_from (Source.senderGroups). */
export const GITHUB_SENDER_GROUPS: NonNullable<Source['senderGroups']> = { prefix: 'association', names: AUTHOR_ASSOCIATIONS, what: 'an author association' };

export function githubReplyOf(payload: Record<string, unknown>): InboundReply | undefined {
  const { comment, issue, repository } = payload;
  if (payload.action !== 'created' || !isPayloadObject(comment) || !isPayloadObject(repository) || !isPayloadObject(comment.user)) return undefined;
  // An issue comment answers its issue or pull request; a review comment answers only when it replies in a thread.
  const pullRequest = isPayloadObject(payload.pull_request) ? payload.pull_request : undefined;
  const thread = !isPayloadObject(issue) && pullRequest ? payloadId(comment.in_reply_to_id) : undefined;
  const number = isPayloadObject(issue) ? payloadId(issue.number) : thread ? payloadId(pullRequest?.number) : undefined;
  const login = payloadId(comment.user.login);
  const repo = payloadId(repository.full_name)?.toLowerCase();
  if (!login || !repo || !number || comment.user.type === 'Bot' || login.endsWith('[bot]')) return undefined;
  const association = payloadId(comment.author_association);
  const url = payloadId(comment.html_url);
  return {
    to: { platform: 'github', chat: repo, messageId: number, ...(thread ? { thread } : {}) },
    userId: login,
    alsoAllowedAs: association ? [`association:${association}`] : [],
    own: url ? { platform: 'github', chat: repo, messageId: url } : undefined,
    from: `GitHub user ${login}${association ? ` (${association})` : ''}`,
    text: payloadText(comment.body),
  };
}
