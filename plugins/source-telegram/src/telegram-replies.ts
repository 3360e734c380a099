// What a Telegram update means for conversations and approvals: a message that replies to another one
// (`message.reply_to_message`, in the same chat) continues the conversation of that message; a `callback_query`
// whose data a draft's Approve / Deny button carried is a press, answered with answerCallbackQuery in the
// webhook's own answer (the Bot API runs a method given in the answer to an update).
import { approvalOfButtonData, type ApprovalPress, type HandshakeAnswer, type InboundReply, type InboundSender } from '@hookwise/core';
import { isPayloadObject, payloadId } from '@hookwise/kit/source';

/** `message.reply_to_message.message_id` in `message.chat.id`, written by `message.from`. */
export function telegramReplyOf(payload: Record<string, unknown>): InboundReply | undefined {
  const message = payload.message;
  if (!isPayloadObject(message) || !isPayloadObject(message.reply_to_message) || !isPayloadObject(message.chat) || !isPayloadObject(message.from))
    return undefined;
  const chat = payloadId(message.chat.id);
  const messageId = payloadId(message.reply_to_message.message_id);
  const userId = payloadId(message.from.id);
  if (!chat || !messageId || !userId) return undefined;
  const name = [message.from.first_name, message.from.last_name].filter((n) => typeof n === 'string').join(' ') || message.from.username;
  const text = typeof message.text === 'string' ? message.text : typeof message.caption === 'string' ? message.caption : '';
  // The person's message, which the answer quotes (reply_parameters) rather than the bot's message they answered.
  const own = payloadId(message.message_id);
  return {
    to: { platform: 'telegram', chat, messageId },
    userId,
    from: `Telegram user ${userId}${name ? ` (${String(name)})` : ''}`,
    text,
    ...(own ? { message: { platform: 'telegram', chat, messageId: own } } : {}),
  };
}

/** A `callback_query` with a draft button's data, pressed by `callback_query.from`. */
export function telegramPressOf(payload: Record<string, unknown>): ApprovalPress | undefined {
  const query = payload.callback_query;
  if (!isPayloadObject(query)) return undefined;
  const button = approvalOfButtonData(query.data);
  const from = isPayloadObject(query.from) ? query.from : undefined;
  const id = payloadId(from?.id);
  if (!button || id === undefined) return undefined;
  const username = typeof from?.username === 'string' ? from.username : undefined;
  // The message with the button: its chat and id (a button on an inline message names none, and counts for nothing).
  const message = isPayloadObject(query.message) ? query.message : undefined;
  const chat = isPayloadObject(message?.chat) ? payloadId(message.chat.id) : undefined;
  const messageId = payloadId(message?.message_id);
  return {
    ...button,
    presser: { platform: 'telegram', id, username },
    ...(chat && messageId ? { message: { platform: 'telegram', chat, messageId } } : {}),
    answerWith: payloadId(query.id),
  };
}

/** Who wrote an update: `from` of its message, edited message, callback query or command (a channel post names no person). */
export function telegramSenderOf(payload: Record<string, unknown>): InboundSender | undefined {
  for (const key of Object.keys(payload)) {
    const part = payload[key];
    if (key === 'update_id' || !isPayloadObject(part) || !isPayloadObject(part.from)) continue;
    const id = payloadId(part.from.id);
    if (!id) return undefined;
    const name = [part.from.first_name, part.from.last_name].filter((n) => typeof n === 'string').join(' ') || part.from.username;
    return { id, from: `Telegram user ${id}${name ? ` (${String(name)})` : ''}` };
  }
  return undefined;
}

/** answerCallbackQuery as the webhook's answer: the presser sees `text` as a notification. */
export function telegramPressAnswer(press: ApprovalPress, text: string): HandshakeAnswer {
  if (press.answerWith === undefined) return { status: 200, body: '', contentType: 'text/plain' };
  return { status: 200, body: { method: 'answerCallbackQuery', callback_query_id: press.answerWith, text } };
}
