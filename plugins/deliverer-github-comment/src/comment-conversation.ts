// Conversations on GitHub: comments reply to no comment, so what a later comment answers is the pull
// request or issue itself. A receipt's target `owner/name#12` is recorded as chat `owner/name` (lower-cased, as
// GitHub matches names) and id `12`, and each posted comment's URL as well, so that the gateway's own comment
// coming back as an issue_comment event is known as its own (source-github's replyOf names it in `own`). The
// answer to a reply is one more comment on the same pull request or issue (sticky or not, as the route says), or,
// to a reply in a review thread, a reply in that thread (deliver_extra.review_comment_id, review-reply.ts).
import type { DelivererConversation, MessageRef } from '@hookwise/core';

export const githubConversation: DelivererConversation = {
  platform: 'github',
  sentRefs(receipt) {
    const pr = typeof receipt.target === 'string' ? /^(.+)#(\d+)$/.exec(receipt.target) : null;
    if (!pr) return undefined;
    const chat = pr[1].toLowerCase();
    const ids = (receipt.ids ?? []).filter((id) => typeof id === 'string' && id !== '');
    const refs: MessageRef[] = [pr[2], ...ids].map((messageId) => ({ platform: 'github', chat, messageId }));
    return { chat: `${chat}#${pr[2]}`, refs };
  },
  // A reply in a review thread (source-github names the thread's top-level comment) is answered in that thread.
  replyExtra: (to, extra) => ({ ...extra, repo: to.chat, pr_number: to.messageId, ...(to.thread ? { review_comment_id: to.thread } : {}) }),
};
