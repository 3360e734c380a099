// What a Matrix application-service transaction (`{events: [...]}`) means for conversations: the first
// `m.room.message` that relates to another event, as a rich reply (`m.relates_to.m.in_reply_to.event_id`) or as a
// thread message (`rel_type: m.thread`, whose `event_id` is the thread's root: a thread under one of the gateway's
// answers continues it). Edits (`m.replace`) and other relations continue nothing.
//
// A homeserver pushes an application service every event of its rooms, the ones its own user sent too: the
// gateway's answer to a reply is itself a rich reply to an earlier answer, so `own` names the event, and the
// gateway, which recorded its answers by event id, takes it for its own rather than for a person's next turn.
import type { InboundReply, InboundSender } from '@hookwise/core';
import { isPayloadObject, payloadId } from '@hookwise/kit/source';

export function matrixReplyOf(payload: Record<string, unknown>): InboundReply | undefined {
  const events = Array.isArray(payload.events) ? payload.events : [];
  for (const event of events) {
    if (!isPayloadObject(event) || event.type !== 'm.room.message' || !isPayloadObject(event.content)) continue;
    const relates = event.content['m.relates_to'];
    if (!isPayloadObject(relates)) continue;
    const inReplyTo = isPayloadObject(relates['m.in_reply_to']) ? payloadId(relates['m.in_reply_to'].event_id) : undefined;
    const answered = relates.rel_type === 'm.thread' ? payloadId(relates.event_id) : relates.rel_type === undefined ? inReplyTo : undefined;
    const chat = payloadId(event.room_id);
    const userId = payloadId(event.sender);
    if (!answered || !chat || !userId) continue;
    const text = typeof event.content.body === 'string' ? withoutReplyFallback(event.content.body) : '';
    const eventId = payloadId(event.event_id);
    const own = eventId ? { platform: 'matrix', chat, messageId: eventId } : undefined;
    // A thread message keeps its thread, so that the answer goes into the thread rather than under its root.
    const thread = relates.rel_type === 'm.thread' ? answered : undefined;
    const to = { platform: 'matrix', chat, messageId: answered, ...(thread ? { thread } : {}) };
    // The person's event is also what the answer replies to (in the thread, when they wrote in one).
    const message = own ? { ...own, ...(thread ? { thread } : {}) } : undefined;
    return { to, userId, from: `Matrix user ${userId}`, text, own, ...(message ? { message } : {}) };
  }
  return undefined;
}

/** A rich reply's body may start with the quoted original ("> <@bot:server> ..." lines and a blank line). */
function withoutReplyFallback(body: string): string {
  const lines = body.split('\n');
  let i = 0;
  while (i < lines.length && lines[i].startsWith('> ')) i += 1;
  return i > 0 && lines[i] === '' ? lines.slice(i + 1).join('\n') : body;
}

/**
 * Who wrote a transaction: the `sender` of its messages (`m.room.message`; without any, of all its events) when
 * they are one and the same. A homeserver batches the events of several people into one transaction (a
 * membership change beside a message is common: then the message's author counts); messages of several people
 * name no single author, and nobody is allowed.
 */
export function matrixSenderOf(payload: Record<string, unknown>): InboundSender | undefined {
  const events = (Array.isArray(payload.events) ? payload.events : []).filter(isPayloadObject);
  const messages = events.filter((event) => event.type === 'm.room.message');
  const senders = new Set((messages.length ? messages : events).map((event) => payloadId(event.sender)));
  const [id] = senders;
  return senders.size === 1 && id ? { id, from: `Matrix user ${id}` } : undefined;
}
