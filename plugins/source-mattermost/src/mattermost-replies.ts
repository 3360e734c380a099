// What a Mattermost outgoing webhook means for conversations. Its payload (Mattermost's
// OutgoingWebhookPayload: token, team_id, team_domain, channel_id, channel_name, timestamp, user_id, user_name,
// post_id, text, trigger_word, file_ids) names no post it answers and no thread (no root_id), so a message in a
// channel continues the conversation whose latest answer the gateway posted in that channel: `to` is the channel
// with the empty message id, and the mattermost deliverer's facet (`byChat`) records each answer there too.
//
// Mattermost fires outgoing webhooks for posts made over the REST API as well, so the gateway's own answers come
// back through this source: `own` names the post, which the deliverer recorded, and `ignore_users` (the bot
// account's user id or username) drops them before they are recorded too. allow_from may name the user id or
// the username.
import type { InboundReply, InboundSender } from '@hookwise/core';
import { payloadId, payloadText } from '@hookwise/kit/source';

export interface MattermostReplyOptions {
  /** User ids or usernames whose posts continue no conversation (the bot account the deliverer posts with). */
  ignore_users?: string[];
}

/** A post by one of `ignore_users` (the gateway's bot account): ignored by the route, never a run or a reply. */
export function mattermostOwnPost(payload: Record<string, unknown>, options: MattermostReplyOptions = {}): boolean {
  const ignored = options.ignore_users ?? [];
  const userId = payloadId(payload.user_id);
  const userName = payloadId(payload.user_name);
  return (userId !== undefined && ignored.includes(userId)) || (userName !== undefined && ignored.includes(userName));
}

/**
 * Who wrote the post: `user_id`, which allow_from may also give by the `user_name`; a post of one of `ignore_users`
 * (the gateway's bot) names nobody.
 */
export function mattermostSenderOf(payload: Record<string, unknown>, options: MattermostReplyOptions = {}): InboundSender | undefined {
  const userId = payloadId(payload.user_id);
  if (!userId || mattermostOwnPost(payload, options)) return undefined;
  const userName = payloadId(payload.user_name);
  return {
    id: userId,
    from: `Mattermost user ${userName ? `@${userName} (${userId})` : userId}`,
    ...(userName && userName !== userId ? { alsoAllowedAs: [userName] } : {}),
  };
}

export function mattermostReplyOf(payload: Record<string, unknown>, options: MattermostReplyOptions = {}): InboundReply | undefined {
  const chat = payloadId(payload.channel_id);
  const userId = payloadId(payload.user_id);
  if (!chat || !userId) return undefined;
  const userName = payloadId(payload.user_name);
  if (mattermostOwnPost(payload, options)) return undefined;
  const postId = payloadId(payload.post_id);
  return {
    to: { platform: 'mattermost', chat, messageId: '' },
    userId,
    alsoAllowedAs: userName ? [userName] : [],
    own: postId ? { platform: 'mattermost', chat, messageId: postId } : undefined,
    from: `Mattermost user ${userName ? `@${userName} (${userId})` : userId}`,
    text: payloadText(payload.text),
  };
}
