// What a WhatsApp Cloud API notification means for conversations: an incoming message (a `messages`
// change) whose `context.id` names an earlier message is the person's reply to it (WhatsApp's "reply" gesture
// quotes the message; Meta's webhook reference: messages[].context {from, id}). The gateway's answers are the
// deliverer's messages, so a reply to one of them continues that conversation. A message without context.id
// (a fresh message, or a forwarded one, whose context only says `forwarded`) answers nothing.
import type { InboundReply, InboundSender } from '@hookwise/core';
import { isPayloadObject, payloadId, payloadText } from '@hookwise/kit/source';

/** The platform name of WhatsApp messages, the one deliverer-whatsapp's conversation facet carries. */
export const WHATSAPP_PLATFORM = 'whatsapp';

const objects = (value: unknown): Array<Record<string, unknown>> => (Array.isArray(value) ? value.filter(isPayloadObject) : []);

/**
 * What a message says, as a person would read it: `text.body`; a quick-reply button of a template (`button.text`);
 * the title of a tapped reply button or list row (`interactive.button_reply` / `interactive.list_reply`); a media
 * message's caption. Anything else (a location, a sticker) says nothing the agent could read.
 */
export function whatsappMessageText(message: Record<string, unknown>): string {
  const type = payloadText(message.type);
  if (type === 'text' && isPayloadObject(message.text)) return payloadText(message.text.body);
  if (type === 'button' && isPayloadObject(message.button)) return payloadText(message.button.text) || payloadText(message.button.payload);
  if (type === 'interactive' && isPayloadObject(message.interactive)) {
    const { interactive } = message;
    const chosen = isPayloadObject(interactive.button_reply)
      ? interactive.button_reply
      : isPayloadObject(interactive.list_reply)
        ? interactive.list_reply
        : undefined;
    return chosen ? payloadText(chosen.title) || payloadText(chosen.id) : '';
  }
  const media = type !== '' ? message[type] : undefined;
  return isPayloadObject(media) ? payloadText(media.caption) : '';
}

/**
 * The first message of the first change (as the source's event type and delivery id read it) when it replies to
 * another message: `context.id` is that message's wamid, in the chat of the sender (`from`, their wa_id).
 */
export function whatsappReplyOf(payload: Record<string, unknown>): InboundReply | undefined {
  const change = objects(objects(payload.entry)[0]?.changes)[0];
  const value = isPayloadObject(change?.value) ? change.value : undefined;
  const message = objects(value?.messages)[0];
  if (!message || !isPayloadObject(message.context)) return undefined;
  const messageId = payloadId(message.context.id);
  const from = payloadId(message.from);
  if (messageId === undefined || from === undefined) return undefined;
  // The person's message (its wamid), which the answer quotes rather than the gateway's message they answered.
  const own = payloadId(message.id);
  // contacts[] names the senders of the messages in the change: the one whose wa_id is this sender's.
  const contacts = objects(value?.contacts);
  const contact = contacts.find((c) => c.wa_id === from) ?? (contacts.length === 1 ? contacts[0] : undefined);
  const name = isPayloadObject(contact?.profile) ? payloadText(contact.profile.name) : '';
  return {
    to: { platform: WHATSAPP_PLATFORM, chat: from, messageId },
    userId: from,
    from: `WhatsApp user ${from}${name ? ` (${name})` : ''}`,
    text: whatsappMessageText(message),
    ...(own ? { message: { platform: WHATSAPP_PLATFORM, chat: from, messageId: own } } : {}),
  };
}

/**
 * Who wrote a notification: the `from` (wa_id) of its messages when every message of every change has the same
 * one; a status update (a sent message's delivery) names no person.
 */
export function whatsappSenderOf(payload: Record<string, unknown>): InboundSender | undefined {
  const senders = new Set<string | undefined>();
  for (const entry of objects(payload.entry)) {
    for (const change of objects(entry.changes)) {
      const value = isPayloadObject(change.value) ? change.value : undefined;
      for (const message of objects(value?.messages)) senders.add(payloadId(message.from));
    }
  }
  const [id] = senders;
  return senders.size === 1 && id ? { id, from: `WhatsApp user ${id}` } : undefined;
}
