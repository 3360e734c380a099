// The Telegram side of the conversation tests on Telegram: a Bot API stand-in that answers sendMessage with a
// Message (ids counting up from `firstMessageId`), and a person's reply posted to the inbound route as Telegram's
// documented "Message with a reply" Update (core.telegram.org/bots/webhooks; documented-payloads.ts).
import type { RecordedRequest, RecordingServer } from '@hookwise/testing';
import type { ConversationHarness } from './conversation-harness';
import { telegramReply, telegramSentMessage } from './documented-payloads';

export interface TelegramChatOptions {
  /** The chat the route answers in, and the person's replies come from. */
  chat: number;
  /** The secret_token given to setWebhook: Telegram sends it back in X-Telegram-Bot-Api-Secret-Token. */
  secret: string;
  /** The message id the stand-in gives the first answer; each next answer gets the next. */
  firstMessageId: number;
  /** The inbound route the replies are posted to (default `tg`). */
  inbound?: string;
}

/** What a sendMessage call asked for. */
export type SentMessage = { chat_id: number; text: string; reply_parameters?: { message_id: number } };

export interface TelegramChat {
  readonly api: RecordingServer;
  /** `platforms.telegram` of the gateway's config, on the stand-in. */
  readonly platform: { enabled: true; token: string; api_base: string };
  /** The sendMessage calls so far, oldest first. */
  sent(): RecordedRequest[];
  message(request: RecordedRequest): SentMessage;
  /** The message id the stand-in gave the first answer whose text holds `marker`. */
  idOf(marker: string): number;
  /** The harness's answered route (conv.answeredRoute) on Telegram, in this chat. */
  alertRoute(conversation: Record<string, unknown>): Record<string, unknown>;
  /** The Telegram route the replies come in on (add it to the routes as `inbound`, default `tg`). */
  readonly inboundRoute: Record<string, unknown>;
  /** Posts `from`'s reply to message `to` to the inbound route, signed with the webhook secret. */
  reply(from: number, to: number, text: string): ReturnType<ConversationHarness['gw']['post']>;
  /** The message id of the last reply posted (the person's own message, which an answer quotes). */
  lastReplyId(): number;
}

export async function startTelegramChat(conv: ConversationHarness, options: TelegramChatOptions): Promise<TelegramChat> {
  let nextMessageId = options.firstMessageId;
  let updateId = options.firstMessageId * 100;
  const api = await conv.startApi((req) =>
    req.path.endsWith('/getMe')
      ? { json: { ok: true, result: { id: 123456, is_bot: true, username: 'hw_bot' } } }
      : { json: telegramSentMessage(nextMessageId++, req.json) },
  );
  const sent = () => api.requests.filter((r) => r.path.endsWith('/sendMessage'));
  const message = (r: RecordedRequest) => r.json as SentMessage;
  return {
    api,
    platform: { enabled: true, token: '123456:conversation-test-token', api_base: api.url },
    sent,
    message,
    alertRoute: (conversation) => conv.answeredRoute('telegram', String(options.chat), conversation),
    inboundRoute: { source: 'telegram', secret: options.secret, prompt: 'Inbound: {message.text}', deliver: 'log', allow_from: ['*'] },
    idOf: (marker) => options.firstMessageId + sent().findIndex((r) => message(r).text.includes(marker)),
    lastReplyId: () => 9000 + updateId,
    reply(from, to, text) {
      updateId += 1;
      const update = telegramReply({ updateId, messageId: 9000 + updateId, chat: options.chat, from, to, text });
      return conv.gw.post(options.inbound ?? 'tg', update, { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': options.secret });
    },
  };
}
