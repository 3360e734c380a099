// What a Feishu (Lark) event body holds once it is readable: the AES-256-CBC envelope `{"encrypt": "..."}` an app
// with an Encrypt Key receives, the schema 2.0 `header` (event_type, event_id, token), the schema 1.0 fields
// (`uuid`, `event.type`, `token`) still sent for older subscriptions, and the reply an `im.message.receive_v1`
// message is (its `parent_id`). Documented at open.feishu.cn: "Receive and process events" (decryption),
// "Receive message" (im.message.receive_v1).
import { payloadString } from '@hookwise/kit/source';
import { createDecipheriv, createHash } from 'node:crypto';
import type { InboundReply, InboundSender } from '@hookwise/core';

/** The platform name of Feishu messages, the same as the deliverer's id. */
export const FEISHU_PLATFORM = 'feishu';

export const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const text = payloadString;

/** A JSON object, or undefined for anything else (invalid JSON, an array, a string). */
export function jsonObject(raw: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Decrypts Feishu's `encrypt` field with an Encrypt Key: the key is sha256(Encrypt Key), the first 16 bytes of the
 * base64 text are the IV, the rest AES-256-CBC with PKCS#7 padding; the plain text is the event's JSON. Undefined
 * when this key does not open it (bad padding or no JSON object), so that each secret of a rotation can be tried.
 */
export function decryptFeishu(encrypt: string, encryptKey: string): Record<string, unknown> | undefined {
  const data = Buffer.from(encrypt, 'base64');
  if (data.length < 32 || data.length % 16 !== 0) return undefined;
  try {
    const key = createHash('sha256').update(encryptKey, 'utf8').digest();
    const decipher = createDecipheriv('aes-256-cbc', key, data.subarray(0, 16));
    const plain = Buffer.concat([decipher.update(data.subarray(16)), decipher.final()]).toString('utf8');
    return jsonObject(plain);
  } catch {
    return undefined;
  }
}

/** The Verification Token the (decrypted) body carries: schema 2.0 `header.token`, else schema 1.0 / url_verification `token`. */
export function feishuToken(payload: Record<string, unknown>): string | undefined {
  return (isObject(payload.header) ? text(payload.header.token) : undefined) ?? text(payload.token);
}

export const isUrlVerification = (payload: Record<string, unknown>): boolean => payload.type === 'url_verification';

/** `header.event_type` (schema 2.0, e.g. `im.message.receive_v1`), `event.type` (schema 1.0), or `url_verification`. */
export function feishuEventType(payload: Record<string, unknown>): string | undefined {
  if (isObject(payload.header) && text(payload.header.event_type)) return text(payload.header.event_type);
  if (isObject(payload.event) && text(payload.event.type)) return text(payload.event.type);
  return text(payload.type);
}

/** `header.event_id` (schema 2.0) or `uuid` (schema 1.0): the same on Feishu's retries of one event. */
export function feishuEventId(payload: Record<string, unknown>): string | undefined {
  return (isObject(payload.header) ? text(payload.header.event_id) : undefined) ?? text(payload.uuid);
}

/** The words of a message's `content` (a JSON string): `text` of a text message, the texts of a post's paragraphs. */
export function feishuMessageText(messageType: unknown, content: unknown): string {
  const parsed = typeof content === 'string' ? jsonObject(content) : undefined;
  if (!parsed) return '';
  if (messageType === 'text') return typeof parsed.text === 'string' ? parsed.text : '';
  if (messageType === 'post') {
    // A post is `{title, content: [[{tag, text}, ...], ...]}`: one array of elements per paragraph.
    const paragraphs = Array.isArray(parsed.content) ? parsed.content : [];
    const lines = paragraphs.map((p) => (Array.isArray(p) ? p.map((e) => (isObject(e) && typeof e.text === 'string' ? e.text : '')).join('') : ''));
    return [typeof parsed.title === 'string' ? parsed.title : '', ...lines].filter((l) => l !== '').join('\n');
  }
  return '';
}

/**
 * Who wrote an `im.message.receive_v1` message: the user's `sender_id.open_id` (else user_id, else union_id), which
 * allow_from may also give by the user_id or union_id. A message an app sent (`sender_type` app), other events and
 * schema 1.0 bodies name nobody.
 */
export function feishuSenderOf(payload: Record<string, unknown>): InboundSender | undefined {
  if (feishuEventType(payload) !== 'im.message.receive_v1' || !isObject(payload.event)) return undefined;
  const sender = payload.event.sender;
  if (!isObject(sender) || sender.sender_type !== 'user' || !isObject(sender.sender_id)) return undefined;
  const ids = sender.sender_id;
  const id = text(ids.open_id) ?? text(ids.user_id) ?? text(ids.union_id);
  if (!id) return undefined;
  const others = [text(ids.user_id), text(ids.union_id)].filter((other): other is string => other !== undefined && other !== id);
  return { id, from: `Feishu user ${id}`, ...(others.length > 0 ? { alsoAllowedAs: others } : {}) };
}

/**
 * An `im.message.receive_v1` message written by a user as a reply (`parent_id`, the message it answers; `root_id`,
 * its thread's first message, when Feishu gives only that) in `chat_id`. Messages that answer nothing, and those
 * an app sent, are no reply.
 */
export function feishuReplyOf(payload: Record<string, unknown>): InboundReply | undefined {
  if (feishuEventType(payload) !== 'im.message.receive_v1' || !isObject(payload.event)) return undefined;
  const { sender, message } = payload.event;
  if (!isObject(sender) || !isObject(message) || sender.sender_type !== 'user') return undefined;
  const answered = text(message.parent_id) ?? text(message.root_id);
  const chat = text(message.chat_id);
  const ids = isObject(sender.sender_id) ? sender.sender_id : {};
  const userId = text(ids.open_id) ?? text(ids.user_id) ?? text(ids.union_id);
  if (!answered || !chat || !userId) return undefined;
  // The person's message, which the answer replies to; in its thread (topic) when they wrote in one.
  const own = text(message.message_id);
  const thread = text(message.thread_id);
  return {
    to: { platform: FEISHU_PLATFORM, chat, messageId: answered },
    userId,
    from: `Feishu user ${userId}`,
    text: feishuMessageText(message.message_type, message.content),
    // Also other names allow_from may use for the author: the user_id and union_id of the same person.
    alsoAllowedAs: [text(ids.user_id), text(ids.union_id)].filter((id): id is string => id !== undefined && id !== userId),
    ...(own ? { message: { platform: FEISHU_PLATFORM, chat, messageId: own, ...(thread ? { thread } : {}) } } : {}),
  };
}
