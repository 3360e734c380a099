// feishu: Feishu / Lark. App bot: a tenant access token from app_id/app_secret, then
// `POST /open-apis/im/v1/messages?receive_id_type=...` with `{receive_id, msg_type:"text", content, uuid}`.
// Custom bot: `POST <webhook_url>` with `{msg_type:"text", content:{text}}`, signed when it has a secret.
// Both answer HTTP 200 (or 4xx) with `{code, msg}`: any code but 0 is a failure. A continuing answer of a
// conversation replies to the message the person answered (feishu-replies.ts).
import { createHmac } from 'node:crypto';
import { urlSecrets } from '@hookwise/kit';
import {
  checkErrorCode,
  definePlatform,
  deliveryKey,
  errorCodeOf,
  extraValue,
  issuedTokenFrom,
  joinUrl,
  platformOptionsSchema,
  type ErrorCodeRules,
  type HttpResponse,
  type OutgoingChunk,
  type PlatformFailure,
  type PlatformOptions,
} from '@hookwise/kit/platform';
import { REPLY_TO_KEY, feishuConversation, replyExtraProblem, replyRequest } from './feishu-replies';

export interface OpenPlatformOptions extends PlatformOptions {
  api_base: string;
  app_id?: string;
  app_secret?: string;
  webhook_url?: string;
  /** Signing secret of the custom bot. */
  secret?: string;
}

export const FEISHU_API_BASE = 'https://open.feishu.cn';
export const LARK_API_BASE = 'https://open.larksuite.com';
/** Parts of at most 15,000 UTF-8 bytes keep a custom bot's request under its 20 KB body limit. */
export const MESSAGE_LIMIT = 15000;
/** Sending messages: 5 per second to one user or one group (shared by the bots in it). */
export const APP_PACE_MS = 200;
/** A custom bot: 100 messages per minute (and 5 per second). */
export const WEBHOOK_PACE_MS = 600;
/** Chat ids (oc_), open ids (ou_), union ids (on_). */
const FEISHU_ID = /^(oc|ou|on)_[A-Za-z0-9]{1,64}$/;
const EMAIL = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

/** Custom bot signature: base64(HMAC-SHA256(key = "<timestamp>\n<secret>", message = "")). */
export function customBotSignature(secret: string, timestampSeconds: number): string {
  return createHmac('sha256', `${timestampSeconds}\n${secret}`).update('').digest('base64');
}

/** The id type of a target, from Feishu's id prefixes: ou_ open_id, on_ union_id, e-mail, else chat_id (oc_). */
export function receiveIdType(target: string): 'open_id' | 'union_id' | 'email' | 'chat_id' {
  if (target.startsWith('ou_')) return 'open_id';
  if (target.startsWith('on_')) return 'union_id';
  if (target.includes('@')) return 'email';
  return 'chat_id';
}

/**
 * Feishu drops a second message with the same uuid within an hour: retries of one part stay one message. From
 * route + delivery id + destination (delivery ids are unique per route only) and the part: 32 hex, '.', index.
 */
export function messageUuid(chunk: Pick<OutgoingChunk, 'route' | 'deliveryId' | 'destination' | 'index'>): string {
  return deliveryKey(chunk);
}

const RULES: ErrorCodeRules = {
  codeField: 'code',
  messageField: 'msg',
  kinds: {
    token_expired: [99991663, 99991661, 99991668],
    rate_limited: [99991400, 230020, 11232],
    auth: [10003, 10014, 99991401, 99991672, 19021, 19022],
    target: [230002, 230013],
  },
  explanations: {
    230002: 'The bot is not a member of this chat: add the bot to the group',
    19021: 'The custom bot signature was refused: check platforms.feishu.secret and the gateway clock',
    19024: 'The message lacks the custom keyword the bot requires: add it to the route prompt',
    99991672: 'The app lacks a permission: enable im:message:send_as_bot (or im:message) and publish a new app version',
  },
  // x-ogw-ratelimit-reset: seconds until the throttled window resets.
  retryAfterSeconds: (res) => {
    const reset = Number(res.headers.get('x-ogw-ratelimit-reset'));
    return Number.isFinite(reset) && reset >= 0 && res.headers.has('x-ogw-ratelimit-reset') ? reset : undefined;
  },
};

export function checkOpenPlatformResponse(res: HttpResponse): PlatformFailure | undefined {
  // Older custom-bot answers say {StatusCode, StatusMessage} instead of {code, msg}.
  if (errorCodeOf(res, 'code') === undefined && errorCodeOf(res, 'StatusCode') !== undefined) {
    return checkErrorCode(res, { ...RULES, codeField: 'StatusCode', messageField: 'StatusMessage' });
  }
  return checkErrorCode(res, RULES);
}

export const feishuPlatform = definePlatform<OpenPlatformOptions>({
  id: 'feishu',
  aliases: ['platform_12'],
  title: 'Feishu/Lark',
  description: 'Sends answers to a Feishu or Lark chat with an app bot (tenant access token) or a custom bot webhook.',
  limit: MESSAGE_LIMIT,
  maxParts: 10,
  paceMs: (_target, o) => (o.webhook_url ? WEBHOOK_PACE_MS : APP_PACE_MS),
  targets: {
    format: 'a chat id (oc_...), an open id (ou_...), a union id (on_...) or one e-mail address',
    check: (target, { extra }) =>
      FEISHU_ID.test(target) || EMAIL.test(target) ? replyExtraProblem(extra) : 'it is neither an oc_/ou_/on_ id nor an e-mail address',
  },
  limitUnit: 'utf8',
  optionsSchema: platformOptionsSchema({
    apiBase: FEISHU_API_BASE,
    properties: {
      app_id: { type: 'string', minLength: 4, description: 'App ID (cli_...) of a custom app with the bot ability.' },
      app_secret: { type: 'string', minLength: 8, description: 'App Secret of that app.' },
      webhook_url: { type: 'string', pattern: '^https?://', description: 'Custom bot webhook URL (.../open-apis/bot/v2/hook/...).' },
      secret: { type: 'string', minLength: 8, description: 'Signing secret of the custom bot ("Set signature verification").' },
    },
  }),
  // The custom bot's token is the last path segment of .../open-apis/bot/v2/hook/<token>.
  secrets: (o) => [o.app_secret, ...urlSecrets(o.webhook_url, 1), o.secret],
  credentialsHint: 'check platforms.feishu.app_id / app_secret (Developer Console > Credentials & Basic Info) or webhook_url / secret of the custom bot',
  configProblems: (o) => {
    if (o.webhook_url) return [];
    if (o.app_id && o.app_secret) return [];
    if (o.app_id || o.app_secret) return ['set both app_id and app_secret'];
    return ['set app_id and app_secret (app bot) or webhook_url (custom bot)'];
  },
  needsTarget: (o) => !o.webhook_url,
  needsToken: (o) => !o.webhook_url,
  async token({ call, options }) {
    const res = await call({
      method: 'POST',
      url: joinUrl(options.api_base, '/open-apis/auth/v3/tenant_access_token/internal'),
      headers: { 'content-type': 'application/json; charset=utf-8' },
      json: { app_id: options.app_id, app_secret: options.app_secret },
    });
    return issuedTokenFrom(res, { token: 'tenant_access_token', expiresIn: 'expire' }, 'feishu (Feishu/Lark)');
  },
  request(chunk, o) {
    if (o.webhook_url) {
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = o.secret ? { timestamp: String(timestamp), sign: customBotSignature(o.secret, timestamp) } : {};
      return { method: 'POST', url: o.webhook_url, json: { ...signature, msg_type: 'text', content: { text: chunk.text } } };
    }
    const replyTo = extraValue(chunk.extra, REPLY_TO_KEY);
    if (replyTo) return replyRequest(chunk, o.api_base, replyTo, messageUuid(chunk));
    const url = new URL(joinUrl(o.api_base, '/open-apis/im/v1/messages'));
    url.searchParams.set('receive_id_type', receiveIdType(chunk.target));
    return {
      method: 'POST',
      url: url.toString(),
      bearer: chunk.token,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      json: { receive_id: chunk.target, msg_type: 'text', content: JSON.stringify({ text: chunk.text }), uuid: messageUuid(chunk) },
    };
  },
  // Conversations: an answer to a chat is recorded under its parts' message ids; a reply to one is answered with
  // Reply message (app bot only; a custom bot's answers name no message).
  conversation: feishuConversation,
  checkResponse: checkOpenPlatformResponse,
  // Send message: {code: 0, msg: "success", data: {message_id: "om_..."}}; a custom bot: {code: 0, data: {}, msg: "success"}
  // (older bots: {StatusCode: 0, StatusMessage: "success"}).
  success: {
    describe: 'code 0 (and data.message_id from the message API)',
    test: (res, o) => {
      if (o.webhook_url) return errorCodeOf(res, 'code') === 0 || errorCodeOf(res, 'StatusCode') === 0;
      return errorCodeOf(res, 'code') === 0 && typeof (res.json as { data?: { message_id?: unknown } }).data?.message_id === 'string';
    },
  },
  messageId: (res) => (res.json as { data?: { message_id?: string } } | undefined)?.data?.message_id,
  async start({ call, options, logger }) {
    if (options.webhook_url) {
      logger.info('feishu (Feishu/Lark): using a custom bot webhook; it is checked by the first delivery');
      return;
    }
    const res = await call((token) => ({ url: joinUrl(options.api_base, '/open-apis/bot/v3/info'), bearer: token }));
    const bot = (res.json as { bot?: { app_name?: string } } | undefined)?.bot;
    logger.info(`feishu (Feishu/Lark): connected as ${bot?.app_name ?? '?'}`);
  },
});
