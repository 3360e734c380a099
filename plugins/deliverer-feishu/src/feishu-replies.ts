// Conversations on Feishu / Lark. source-feishu reads a person's reply (`im.message.receive_v1` with
// `parent_id`, else `root_id`) as an answer to that message (`om_...`) in `message.chat_id` (`oc_...`), so an
// answer is recorded under the chat it went to and the message ids Feishu gave its parts; a continuing answer
// replies to the person's message (in its thread when it was written in one) with "Reply message"
// (open.feishu.cn/document/server-docs/im-v1/message/reply: `POST /open-apis/im/v1/messages/:message_id/reply`,
// body `{content, msg_type, reply_in_thread?, uuid?}`, answered like Send message with `data.message_id`; the
// official @larksuiteoapi/node-sdk's `im.message.reply` has the same shape). Only the app bot can do either: a custom bot's answer names no message id, and its group's chat id is
// unknown to it.
import type { DelivererConversation } from '@hookwise/core';
import { extraValue, joinUrl, pathSegment, type HttpRequest, type OutgoingChunk } from '@hookwise/kit/platform';

/** The platform name of Feishu messages, the one source-feishu's replies say. */
export const FEISHU_PLATFORM = 'feishu';
/** deliver_extra naming the message a part replies to, set by the facet for a continuing answer. */
export const REPLY_TO_KEY = 'reply_to_message_id';
/** deliver_extra `reply_in_thread: "true"`: the reply opens (or joins) the message's thread ("topic"). */
export const REPLY_IN_THREAD_KEY = 'reply_in_thread';
/** Message ids: `om_` and letters, digits (the docs' examples: om_dc13264520392913993dd051dba21dcf). */
const MESSAGE_ID = /^om_[A-Za-z0-9_-]{1,128}$/;
/** Chat ids, the only targets whose replies come back in the same chat (`oc_...`). */
const CHAT_ID = /^oc_[A-Za-z0-9]{1,64}$/;

/** Why deliver_extra's reply fields cannot be sent; undefined when they can (or are absent). */
export function replyExtraProblem(extra: Record<string, string>): string | undefined {
  const replyTo = extraValue(extra, REPLY_TO_KEY);
  if (replyTo !== undefined && !MESSAGE_ID.test(replyTo))
    return `deliver_extra.${REPLY_TO_KEY} ${JSON.stringify(replyTo.slice(0, 40))} is not a message id (om_...)`;
  const thread = extraValue(extra, REPLY_IN_THREAD_KEY);
  if (thread !== undefined && thread !== 'true' && thread !== 'false')
    return `deliver_extra.${REPLY_IN_THREAD_KEY} ${JSON.stringify(thread.slice(0, 40))} is neither "true" nor "false"`;
  return undefined;
}

/**
 * Reply message for one part: every part answers the same message, so a split answer stays together under it
 * (and in its thread). Same body as Send message without receive_id; `uuid` keeps a retried part one message.
 */
export function replyRequest(chunk: OutgoingChunk, apiBase: string, messageId: string, uuid: string): HttpRequest {
  const inThread = extraValue(chunk.extra, REPLY_IN_THREAD_KEY) === 'true';
  return {
    method: 'POST',
    url: joinUrl(apiBase, `/open-apis/im/v1/messages/${pathSegment(messageId, 'feishu (Feishu/Lark)')}/reply`),
    bearer: chunk.token,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    json: { msg_type: 'text', content: JSON.stringify({ text: chunk.text }), ...(inThread ? { reply_in_thread: true } : {}), uuid },
  };
}

/**
 * The facet: an answer sent to a chat (`oc_...`) is recorded there under each part's message id. One sent to a
 * person (`ou_`/`on_`/e-mail) lands in the p2p chat whose `oc_` id the receipt does not know, and a custom bot's
 * has no ids: neither is recorded (the README says to deliver to `{event.message.chat_id}`).
 */
export const feishuConversation: DelivererConversation = {
  platform: FEISHU_PLATFORM,
  sentRefs: ({ target, ids }) => {
    const sent = (ids ?? []).filter((id) => id !== '');
    if (target === undefined || !CHAT_ID.test(target) || !sent.length) return undefined;
    return { chat: target, refs: sent.map((messageId) => ({ platform: FEISHU_PLATFORM, chat: target, messageId })) };
  },
  // The answer replies to the person's message, in its chat; in its thread (topic) when they wrote in one.
  replyExtra: (to, extra) => ({ ...extra, chat_id: to.chat, [REPLY_TO_KEY]: to.messageId, ...(to.thread ? { [REPLY_IN_THREAD_KEY]: 'true' } : {}) }),
};
