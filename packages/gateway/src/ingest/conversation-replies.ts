// What an inbound message answers, read from the platform's own payload (issue 31): a Telegram Update whose
// message has `reply_to_message` (the message it answers, in the same chat), a Slack Events API `event_callback`
// message with `thread_ts` (a message in a thread), a Matrix `m.relates_to`, a GitHub `issue_comment`. Plain functions over the parsed payload: no store, no await.
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
  /** Other names allow_from may give the author by (GitHub: the author_association). */
  alsoAllowedAs?: string[];
  /** The inbound message itself when the gateway may have posted it: one it recorded continues nothing. */
  own?: MessageRef;
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

/**
 * Matrix (an application-service transaction, `{events: [...]}`): the first `m.room.message` that relates to
 * another event, a rich reply (`m.relates_to.m.in_reply_to.event_id`) or a thread message (`rel_type: m.thread`,
 * whose `event_id` is the thread's root: a thread under one of the gateway's answers continues it). Edits
 * (`m.replace`) and other relations continue nothing.
 */
export function matrixReplyOf(payload: Record<string, unknown>): InboundReply | undefined {
  const events = Array.isArray(payload.events) ? payload.events : [];
  for (const event of events) {
    if (!isObject(event) || event.type !== 'm.room.message' || !isObject(event.content)) continue;
    const relates = event.content['m.relates_to'];
    if (!isObject(relates)) continue;
    const inReplyTo = isObject(relates['m.in_reply_to']) ? idText(relates['m.in_reply_to'].event_id) : undefined;
    const answered = relates.rel_type === 'm.thread' ? idText(relates.event_id) : relates.rel_type === undefined ? inReplyTo : undefined;
    const chat = idText(event.room_id);
    const userId = idText(event.sender);
    if (!answered || !chat || !userId) continue;
    const text = typeof event.content.body === 'string' ? withoutReplyFallback(event.content.body) : '';
    return { to: { platform: 'matrix', chat, messageId: answered }, userId, from: `Matrix user ${userId}`, text };
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
 * GitHub: an `issue_comment` (created) on a pull request or issue; GitHub comments reply to no comment, so what it
 * answers is the pull request (`owner/name` lower-cased, the number), where the gateway's answers are recorded.
 * Bots (`user.type` Bot, an App's `name[bot]` login) continue nothing; `own` names the comment itself, so that a
 * comment the gateway posted with a person's token (the gh client) is recognised too. allow_from matches the login
 * or the `author_association` (MEMBER, OWNER, COLLABORATOR...).
 */
export function githubReplyOf(payload: Record<string, unknown>): InboundReply | undefined {
  const { comment, issue, repository } = payload;
  if (payload.action !== 'created' || !isObject(comment) || !isObject(issue) || !isObject(repository) || !isObject(comment.user)) return undefined;
  const login = idText(comment.user.login);
  const repo = idText(repository.full_name)?.toLowerCase();
  const number = idText(issue.number);
  if (!login || !repo || !number || comment.user.type === 'Bot' || login.endsWith('[bot]')) return undefined;
  const association = idText(comment.author_association);
  const url = idText(comment.html_url);
  return {
    to: { platform: 'github', chat: repo, messageId: number },
    userId: login,
    alsoAllowedAs: association ? [association] : [],
    own: url ? { platform: 'github', chat: repo, messageId: url } : undefined,
    from: `GitHub user ${login}${association ? ` (${association})` : ''}`,
    text: typeof comment.body === 'string' ? comment.body : '',
  };
}

/** The reader of each source whose messages may answer the gateway's, by the route's pinned `source:`. */
export const REPLY_READERS: Record<string, (payload: Record<string, unknown>) => InboundReply | undefined> = {
  telegram: telegramReplyOf,
  slack: slackReplyOf,
  matrix: matrixReplyOf,
  github: githubReplyOf,
};
