// wechat: WeChat Official Account customer-service messages. A stable access token
// from app_id/app_secret (`POST /cgi-bin/stable_token`: unlike `/cgi-bin/token`, another system fetching a
// token for the same account does not invalidate ours), then `POST /cgi-bin/message/custom/send?access_token=...`
// with `{touser: <openid>, msgtype:"text", text:{content}}`. HTTP 200 with `{errcode, errmsg}`.
import type { DelivererConversation } from '@hookwise/core';
import {
  checkErrorCode,
  definePlatform,
  errorCodeOf,
  issuedTokenFrom,
  joinUrl,
  platformOptionsSchema,
  type HttpResponse,
  type PlatformFailure,
  type PlatformOptions,
} from '@hookwise/kit/platform';

export interface OfficialAccountOptions extends PlatformOptions {
  api_base: string;
  app_id: string;
  app_secret: string;
}

export const DEFAULT_API_BASE = 'https://api.weixin.qq.com';
/** Parts of at most 2048 UTF-8 bytes, the text size WeChat's message APIs accept. */
export const MESSAGE_LIMIT = 2048;
/** An openid: the follower's id for this account (28 characters today: letters, digits, - and _). */
const OPENID = /^[A-Za-z0-9_-]{16,64}$/;

export function checkOfficialAccountResponse(res: HttpResponse): PlatformFailure | undefined {
  return checkErrorCode(res, {
    codeField: 'errcode',
    messageField: 'errmsg',
    kinds: {
      token_expired: [40001, 40014, 41001, 42001],
      rate_limited: [45009],
      unavailable: [-1],
      auth: [40013, 40125, 40164, 48001],
      target: [40003, 43004],
      // 45047 is listed nowhere else: not retried (the count resets only when the user writes again).
    },
    explanations: {
      45015:
        'Reply window closed: customer-service messages reach a user only within 48 hours of their last message or interaction with the account; they must write to the account first. Not retried',
      45047:
        'Too many customer-service messages to this user since their last interaction; more can only be sent after the user writes to the account again. Not retried (lower platforms.wechat.max_parts)',
      40164: "The gateway's IP is not in the account's IP whitelist (Settings and Development > Basic Configuration)",
      48001: 'The account lacks the customer-service message permission (a verified service account is needed)',
      43004: 'The user does not follow the account',
    },
  });
}

/**
 * Conversations. source-wechat reads a follower's message to the account as a reply to the latest answer
 * to that follower (chat: `FromUserName`, the openid; no message id, since the pushed XML names no message it
 * answers: "Receiving standard messages"). Every answer goes to one openid with message/custom/send, so each is
 * recorded as that openid's latest (byChat, id ''), and the answer to a reply goes to the openid that wrote it.
 */
export const wechatConversation: DelivererConversation = {
  platform: 'wechat',
  byChat: true,
  sentRefs: ({ target }) =>
    target !== undefined && OPENID.test(target) ? { chat: target, refs: [{ platform: 'wechat', chat: target, messageId: '' }] } : undefined,
  // Whatever the route's chat_id renders to, the answer to a reply goes to the follower who wrote it.
  replyExtra: (to, extra) => ({ ...extra, chat_id: to.chat }),
};

export const wechatPlatform = definePlatform<OfficialAccountOptions>({
  id: 'wechat',
  aliases: ['platform_14'],
  title: 'WeChat Official Account',
  description: 'Sends answers to a follower of a WeChat Official Account as customer-service messages.',
  limit: MESSAGE_LIMIT,
  // Customer-service messages after one interaction are capped (errcode 45047): few parts.
  maxParts: 5,
  targets: {
    format: "a follower's openid (e.g. oUpF8uMuAJO_M2pxb1Q9zNjWeS6o)",
    check: (target) => (OPENID.test(target) ? undefined : 'it is not an openid'),
  },
  limitUnit: 'utf8',
  optionsSchema: platformOptionsSchema({
    apiBase: DEFAULT_API_BASE,
    properties: {
      app_id: { type: 'string', minLength: 4, description: 'AppID of the Official Account.' },
      app_secret: { type: 'string', minLength: 8, description: 'AppSecret of the Official Account.' },
    },
    required: ['app_id', 'app_secret'],
  }),
  secrets: (o) => [o.app_secret],
  credentialsHint: 'check platforms.wechat.app_id / app_secret (Settings and Development > Basic Configuration) and the IP whitelist',
  async token({ call, options }) {
    // Normal mode (force_refresh false): the platform renews the token 5 minutes before it expires.
    const res = await call({
      method: 'POST',
      url: joinUrl(options.api_base, '/cgi-bin/stable_token'),
      json: { grant_type: 'client_credential', appid: options.app_id, secret: options.app_secret, force_refresh: false },
    });
    return issuedTokenFrom(res, { token: 'access_token', expiresIn: 'expires_in' }, 'wechat (WeChat Official Account)');
  },
  request: (chunk, o) => ({
    method: 'POST',
    url: joinUrl(o.api_base, '/cgi-bin/message/custom/send', { access_token: chunk.token ?? '' }),
    json: { touser: chunk.target, msgtype: 'text', text: { content: chunk.text } },
  }),
  conversation: wechatConversation,
  checkResponse: checkOfficialAccountResponse,
  // message/custom/send answers {"errcode": 0, "errmsg": "ok"} when it sent the message.
  success: { describe: 'errcode 0', test: (res) => errorCodeOf(res, 'errcode') === 0 },
  async start({ call, options, logger }) {
    await call((token) => ({ url: joinUrl(options.api_base, '/cgi-bin/get_api_domain_ip', { access_token: token ?? '' }) }));
    logger.info('wechat (WeChat Official Account): app credentials accepted');
  },
});
