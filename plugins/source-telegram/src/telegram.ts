// Telegram Bot API webhooks: `setWebhook` with `secret_token` makes Telegram send that token back, unchanged, in the
// X-Telegram-Bot-Api-Secret-Token header of every update it posts. Telegram signs nothing, so the token is the
// only proof of the sender: it is compared in constant time with each of the route's secrets.
import { headerValue, type SourceRequest, type SourceVerdict } from '@hookwise/core';
import { constantTimeEqual, defineSource, missingHeader, verdictForSecrets } from '@hookwise/kit/source';
import { telegramPressAnswer, telegramPressOf, telegramReplyOf, telegramSenderOf } from './telegram-replies';
import { telegramPayloadSchema } from './payload-schema';

export const SECRET_TOKEN_HEADER = 'x-telegram-bot-api-secret-token';

/** Telegram's documented alphabet and length for `secret_token` (1-256 of A-Z, a-z, 0-9, _ and -). */
export const SECRET_TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;

/**
 * The update's kind: the one field beside `update_id` (`message`, `edited_message`, `channel_post`,
 * `callback_query`, `inline_query`, `my_chat_member`, ...; Telegram's Update object has exactly one of them).
 */
export function telegramUpdateKind(payload: Record<string, unknown>): string | undefined {
  for (const key of Object.keys(payload)) {
    if (key !== 'update_id' && payload[key] !== null && typeof payload[key] === 'object') return key;
  }
  return undefined;
}

/** `update_id`: the same on Telegram's retries of one update, and increasing across updates. */
export function telegramUpdateId(payload: Record<string, unknown>): string | undefined {
  const id = payload.update_id;
  return typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : undefined;
}

export function verifyTelegramToken(req: SourceRequest, secrets: readonly string[]): SourceVerdict {
  const offered = headerValue(req.headers, SECRET_TOKEN_HEADER);
  if (offered === undefined) return missingHeader(SECRET_TOKEN_HEADER);
  return verdictForSecrets(
    secrets,
    (secret) => constantTimeEqual(offered, secret),
    `${SECRET_TOKEN_HEADER} does not match (is the route's secret the secret_token given to setWebhook?)`,
  );
}

export const telegramSource = defineSource({
  id: 'telegram',
  payloadSchema: telegramPayloadSchema,
  description: 'Telegram Bot API: X-Telegram-Bot-Api-Secret-Token (the secret_token of setWebhook), event type the update kind, delivery id update_id',
  style: () => ({
    headers: [SECRET_TOKEN_HEADER],
    verify: verifyTelegramToken,
    eventType: (_req, payload) => telegramUpdateKind(payload),
    deliveryId: (_req, payload) => telegramUpdateId(payload),
    replyOf: telegramReplyOf,
    pressOf: telegramPressOf,
    senderOf: telegramSenderOf,
    pressAnswer: telegramPressAnswer,
  }),
});
