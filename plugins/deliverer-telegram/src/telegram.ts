// telegram: the Telegram Bot API. sendMessage per chunk (4096 characters), forum
// topics through message_thread_id, getMe as the start() check. Answers are sent as plain text (no
// parse_mode): agent markdown would otherwise have to be escaped for MarkdownV2 and a stray character fails
// the whole message. Parts are paced at the per-chat rates of the Bots FAQ.
import {
  classifyHttpStatus,
  definePlatform,
  extraValue,
  joinUrl,
  platformOptionsSchema,
  type HttpResponse,
  type PlatformFailure,
  type PlatformOptions,
} from '@hookwise/kit/platform';

export interface BotApiOptions extends PlatformOptions {
  token: string;
  api_base: string;
}

export const DEFAULT_API_BASE = 'https://api.telegram.org';
export const MESSAGE_LIMIT = 4096;
/** Bots FAQ ("My bot is hitting limits"): about one message per second in a chat, 20 per minute in a group. */
export const PRIVATE_CHAT_PACE_MS = 1000;
export const GROUP_PACE_MS = 3000;

/** Chat ids: a user or group number (supergroups and channels `-100...`), or a public `@channelusername`. */
const CHAT_ID = /^-?\d{1,20}$/;
const CHANNEL_USERNAME = /^@[A-Za-z][A-Za-z0-9_]{3,31}$/;
/** Forum topic ids are message ids: positive numbers. */
const THREAD_ID = /^\d{1,12}$/;

interface BotApiReply {
  ok?: boolean;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
  result?: { message_id?: number; chat?: { id?: number | string } };
}

function method(options: BotApiOptions, name: string): string {
  return joinUrl(options.api_base, `bot${options.token}/${name}`);
}

/** Numeric ids go out as numbers (what the API documents); @channelusername stays a string. */
function idValue(value: string): string | number {
  return /^-?\d{1,15}$/.test(value) ? Number(value) : value;
}

/** Telegram explains every failure in the body: `{ok:false, error_code, description, parameters}`. */
export function checkBotApiResponse(res: HttpResponse): PlatformFailure | undefined {
  const reply = (res.json ?? {}) as BotApiReply;
  // A 2xx that is no Bot API answer at all is left to the success check (not the platform's success either).
  if ((reply.ok === true || reply.ok === undefined) && res.status < 300) return undefined;
  const code = reply.error_code ?? res.status;
  const description = reply.description ?? `HTTP ${res.status}`;
  const message = `${code} ${description}`;
  if (code === 401 || code === 404) return { kind: 'auth', message }; // 404: the token in the URL is malformed
  if (code === 429) return { kind: 'rate_limited', message, retryAfterSeconds: reply.parameters?.retry_after };
  if (reply.parameters?.migrate_to_chat_id !== undefined) {
    return { kind: 'target', message: `${message} (the group became a supergroup: use chat_id ${reply.parameters.migrate_to_chat_id})` };
  }
  if (code === 403 || (code === 400 && /chat not found|thread not found|topic/i.test(description))) return { kind: 'target', message };
  return classifyHttpStatus({ ...res, status: code >= 400 ? code : 502 }, description);
}

export const telegramPlatform = definePlatform<BotApiOptions>({
  id: 'telegram',
  aliases: ['platform_01'],
  title: 'Telegram',
  description: 'Sends answers as Telegram bot messages (Bot API sendMessage), optionally into a forum topic.',
  limit: MESSAGE_LIMIT,
  maxParts: 20,
  // Groups, supergroups and channels have negative ids or @names: 20 messages per minute there.
  paceMs: (target) => (target.startsWith('-') || target.startsWith('@') ? GROUP_PACE_MS : PRIVATE_CHAT_PACE_MS),
  targets: {
    format: 'a numeric chat id (e.g. 123456789, or -1001234567890 for a supergroup or channel) or a public @channelusername',
    check: (target, { extra }) => {
      if (!CHAT_ID.test(target) && !CHANNEL_USERNAME.test(target)) return 'it is neither a numeric chat id nor an @channelusername';
      const thread = extraValue(extra, 'message_thread_id', 'thread_id');
      if (thread !== undefined && !THREAD_ID.test(thread))
        return `deliver_extra.message_thread_id ${JSON.stringify(thread.slice(0, 40))} is not a topic id (a number)`;
      const replyTo = extraValue(extra, 'reply_to_message_id');
      if (replyTo !== undefined && !THREAD_ID.test(replyTo))
        return `deliver_extra.reply_to_message_id ${JSON.stringify(replyTo.slice(0, 40))} is not a message id (a number)`;
      return undefined;
    },
  },
  optionsSchema: platformOptionsSchema({
    apiBase: DEFAULT_API_BASE,
    properties: { token: { type: 'string', minLength: 10, description: 'Bot token from @BotFather, e.g. 123456:ABC-DEF...' } },
    required: ['token'],
  }),
  secrets: (o) => [o.token],
  credentialsHint: 'check platforms.telegram.token (get a bot token from @BotFather with /newbot or /token)',
  request: (chunk, o) => {
    const thread = extraValue(chunk.extra, 'message_thread_id', 'thread_id');
    // An answer in a conversation replies to the message it answers (its first part; the rest follow it). Sent
    // even when that message was deleted meanwhile, rather than failing the answer.
    const replyTo = chunk.index === 0 ? extraValue(chunk.extra, 'reply_to_message_id') : undefined;
    return {
      method: 'POST',
      url: method(o, 'sendMessage'),
      json: {
        chat_id: idValue(chunk.target),
        text: chunk.text,
        ...(thread ? { message_thread_id: idValue(thread) } : {}),
        ...(replyTo ? { reply_parameters: { message_id: Number(replyTo), allow_sending_without_reply: true } } : {}),
      },
    };
  },
  // Conversations: an answer replies to the message the person answered (reply_parameters, above), in its chat.
  conversation: {
    replyExtra: (to, extra) => ({ ...extra, ...(extra.chat_id !== undefined ? { chat_id: to.chat } : {}), reply_to_message_id: to.messageId }),
  },
  // Approvals: the draft with an inline keyboard; a press comes back as a callback_query update (source-telegram).
  approvalDraft: (draft, target, o) => ({
    method: 'POST',
    url: method(o, 'sendMessage'),
    json: {
      chat_id: idValue(target),
      text: draft.text,
      reply_markup: {
        inline_keyboard: [
          [
            { text: 'Approve', callback_data: draft.approveData },
            { text: 'Deny', callback_data: draft.denyData },
          ],
        ],
      },
    },
  }),
  // A decided draft: editMessageText with the decision; without reply_markup the inline keyboard is removed.
  approvalDecided: (draft, text, o) => ({
    method: 'POST',
    url: method(o, 'editMessageText'),
    json: { chat_id: idValue(draft.chat), message_id: Number(draft.messageId), text },
  }),
  checkResponse: checkBotApiResponse,
  // Bot API: "If 'ok' equals True, the request was successful"; sendMessage returns the sent Message.
  success: {
    describe: 'ok: true with result.message_id',
    test: (res) => (res.json as BotApiReply | undefined)?.ok === true && typeof (res.json as BotApiReply).result?.message_id === 'number',
  },
  messageId: (res) => {
    const id = (res.json as BotApiReply | undefined)?.result?.message_id;
    return id === undefined ? undefined : String(id);
  },
  // A draft sent to @channelusername is pressed in the chat's numeric id (callback_query.message.chat.id).
  draftChat: (res) => {
    const id = (res.json as BotApiReply | undefined)?.result?.chat?.id;
    return typeof id === 'number' || typeof id === 'string' ? String(id) : undefined;
  },
  async start({ call, options, logger }) {
    const res = await call({ method: 'GET', url: method(options, 'getMe') });
    const bot = (res.json as { result?: { username?: string } }).result;
    logger.info(`telegram (Telegram): connected as @${bot?.username ?? 'unknown'}`);
  },
});
