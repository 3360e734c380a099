// What a Slack payload means for conversations and approvals: an Events API `message` in a thread
// (`thread_ts` other than its own `ts`) continues the conversation of the thread's root; an interactivity
// `block_actions` payload whose button carries a draft's Approve / Deny data is a press (answered with an empty
// 200, well within Slack's 3 seconds).
import { approvalOfButtonData, type ApprovalPress, type InboundReply, type InboundSender } from '@hookwise/core';
import { isPayloadObject, payloadId, payloadText } from '@hookwise/kit/source';

/**
 * Subtypes of a message a person wrote: a thread reply also sent to the channel (`thread_broadcast`) and a message
 * with a file (`file_share`). Edits (`message_changed`), deletions, `message_replied` notices about a thread's
 * parent, bot messages and channel notices are none.
 */
const PERSON_SUBTYPES = new Set(['thread_broadcast', 'file_share']);

/**
 * A person's `message` event in a thread. Messages of bots (the gateway's own answers come back as events) and
 * edits or other subtypes continue nothing. Slack's documented file_share event carries `"bot_id": null` for a
 * person: only a bot id that is there marks a bot.
 */
export function slackReplyOf(payload: Record<string, unknown>): InboundReply | undefined {
  const event = payload.event;
  if (payload.type !== 'event_callback' || !isPayloadObject(event) || event.type !== 'message') return undefined;
  if (event.subtype !== undefined && !PERSON_SUBTYPES.has(String(event.subtype))) return undefined;
  if (payloadId(event.bot_id) !== undefined) return undefined;
  const chat = payloadId(event.channel);
  const thread = payloadId(event.thread_ts);
  const userId = payloadId(event.user);
  if (!chat || !thread || !userId || thread === event.ts) return undefined;
  // The person's message, in the thread it was written in: the answer goes into that thread (thread_ts is its root).
  const own = payloadId(event.ts);
  return {
    to: { platform: 'slack', chat, messageId: thread },
    userId,
    from: `Slack user ${userId}`,
    text: payloadText(event.text),
    ...(own ? { message: { platform: 'slack', chat, messageId: own, thread } } : {}),
  };
}

/**
 * A message the app's own bot user posted (the gateway's answers come back as `message` events too): the event's
 * `user` is the bot user of the envelope's authorization (`authorizations[0]`, `is_bot`), and it carries a
 * `bot_id`. Slack truncates `authorizations` to one installation that can see the event; where that is not the bot
 * user, the message is not recognised as the gateway's own (and runs as before).
 */
export function slackOwnMessage(payload: Record<string, unknown>): boolean {
  const event = payload.event;
  if (payload.type !== 'event_callback' || !isPayloadObject(event) || event.type !== 'message' || !event.bot_id) return false;
  const [authorization] = Array.isArray(payload.authorizations) ? payload.authorizations : [];
  return isPayloadObject(authorization) && authorization.is_bot === true && payloadId(authorization.user_id) === payloadId(event.user);
}

/**
 * Who wrote or did it: an Events API event's `user` (a bot's message names its bot, not a person), an
 * interactivity payload's `user.id`, a slash command's `user_id`.
 */
export function slackSenderOf(payload: Record<string, unknown>): InboundSender | undefined {
  const event = isPayloadObject(payload.event) ? payload.event : undefined;
  if (payload.type === 'event_callback' && payloadId(event?.bot_id) !== undefined) return undefined;
  const id =
    payload.type === 'event_callback'
      ? payloadId(event?.user)
      : (payloadId(isPayloadObject(payload.user) ? payload.user.id : undefined) ?? payloadId(payload.user_id));
  return id ? { id, from: `Slack user ${id}` } : undefined;
}

/** A `block_actions` payload with a draft's button (its `value`), pressed by `user`. */
export function slackPressOf(payload: Record<string, unknown>): ApprovalPress | undefined {
  if (payload.type !== 'block_actions' || !Array.isArray(payload.actions)) return undefined;
  const user = isPayloadObject(payload.user) ? payload.user : undefined;
  const id = payloadId(user?.id);
  if (id === undefined) return undefined;
  for (const action of payload.actions) {
    const button = isPayloadObject(action) ? approvalOfButtonData(action.value) : undefined;
    if (!button) continue;
    const username = typeof user?.username === 'string' ? user.username : typeof user?.name === 'string' ? user.name : undefined;
    // The message with the button: the channel and the message's ts (block_actions' `container` and `channel`).
    const container = isPayloadObject(payload.container) ? payload.container : undefined;
    const chat = payloadId(isPayloadObject(payload.channel) ? payload.channel.id : undefined) ?? payloadId(container?.channel_id);
    const messageId = payloadId(container?.message_ts) ?? payloadId(isPayloadObject(payload.message) ? payload.message.ts : undefined);
    return { ...button, presser: { platform: 'slack', id, username }, ...(chat && messageId ? { message: { platform: 'slack', chat, messageId } } : {}) };
  }
  return undefined;
}
