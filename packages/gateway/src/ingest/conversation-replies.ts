// What an inbound message answers, read from the platform's own payload (issue 31): a Telegram Update whose
// message has `reply_to_message` (the message it answers, in the same chat), a Slack Events API `event_callback`
// message with `thread_ts` (a message in a thread). Plain functions over the parsed payload: no store, no await.
import type { MessageRef } from '../jobs/conversation-records';

/** An inbound message that answers another one. */
export interface InboundReply {
  /** The message it answers (Slack: the thread's root ts). */
  to: MessageRef;
  /** The author's platform user id, matched against allow_from. */
  userId: string;
  /** The author for people and prompts: "Telegram user 42 (Alice)". */
  from: string;
  text: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const idText = (value: unknown): string | undefined =>
  (typeof value === 'number' && Number.isSafeInteger(value)) || (typeof value === 'string' && value !== '') ? String(value) : undefined;

/** Telegram: `message.reply_to_message.message_id` in `message.chat.id`, written by `message.from`. */
export function telegramReplyOf(payload: Record<string, unknown>): InboundReply | undefined {
  const message = payload.message;
  if (!isObject(message) || !isObject(message.reply_to_message) || !isObject(message.chat) || !isObject(message.from)) return undefined;
  const chat = idText(message.chat.id);
  const messageId = idText(message.reply_to_message.message_id);
  const userId = idText(message.from.id);
  if (!chat || !messageId || !userId) return undefined;
  const name = [message.from.first_name, message.from.last_name].filter((n) => typeof n === 'string').join(' ') || message.from.username;
  const text = typeof message.text === 'string' ? message.text : typeof message.caption === 'string' ? message.caption : '';
  return { to: { platform: 'telegram', chat, messageId }, userId, from: `Telegram user ${userId}${name ? ` (${String(name)})` : ''}`, text };
}

/**
 * Slack: a plain `message` event in a thread (`thread_ts` other than its own `ts`). Messages of bots (the
 * gateway's own answers come back as events) and edits or other subtypes continue nothing.
 */
export function slackReplyOf(payload: Record<string, unknown>): InboundReply | undefined {
  const event = payload.event;
  if (payload.type !== 'event_callback' || !isObject(event) || event.type !== 'message') return undefined;
  if (event.subtype !== undefined || event.bot_id !== undefined) return undefined;
  const chat = idText(event.channel);
  const thread = idText(event.thread_ts);
  const userId = idText(event.user);
  if (!chat || !thread || !userId || thread === event.ts) return undefined;
  return { to: { platform: 'slack', chat, messageId: thread }, userId, from: `Slack user ${userId}`, text: typeof event.text === 'string' ? event.text : '' };
}

/** The reader of each source whose messages may answer the gateway's, by the route's pinned `source:`. */
export const REPLY_READERS: Record<string, (payload: Record<string, unknown>) => InboundReply | undefined> = {
  telegram: telegramReplyOf,
  slack: slackReplyOf,
};
