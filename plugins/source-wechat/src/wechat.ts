// WeChat Official Account messages ("接收普通消息", "接收事件推送"): the account's server configuration names a URL,
// a Token and, for compatible or safe mode, an EncodingAESKey. WeChat checks the URL with a GET (`signature` = sha1 of
// the sorted Token, timestamp and nonce; `echostr`, to be echoed as it is), then POSTs each message as XML. In
// plaintext mode the body is the message, and only `signature` (which covers no body) vouches for it; in compatible
// and safe mode the query adds `encrypt_type=aes` and `msg_signature`, and the body's `<Encrypt>` holds the message
// in Tencent's WXBizMsgCrypt scheme (the same as WeCom's, @hookwise/kit/source), encrypted for the AppID.
// The route's secret: `<Token>:<EncodingAESKey>` (encrypted messages only), or the Token alone (plaintext mode).
import { type InboundReply, type InboundSender, type SourceRequest, type SourceVerdict } from '@hookwise/core';
import {
  constantTimeEqual,
  defineSource,
  openWxBizMsg,
  timestampProblem,
  toleranceOption,
  wxBizMsgKeys,
  wxBizMsgQuery,
  wxBizMsgSignature,
  wxBizMsgXml,
} from '@hookwise/kit/source';
import { wechatPayloadSchema } from './payload-schema';

/** The platform name of WeChat messages, the same as the deliverer's id. */
export const WECHAT_PLATFORM = 'wechat';
/**
 * WeChat documents no replay window and retries within 15 seconds; five minutes covers clock skew. Kept short
 * because a plaintext-mode `signature` covers no body: a captured query could carry another body while it is fresh.
 */
export const WECHAT_TOLERANCE_SECONDS = 300;
/** Where the Token and EncodingAESKey are set, named in errors. */
const SETTINGS = 'the account\'s server configuration ("Settings and Development > Basic Configuration")';
/** A Token written alone: 3 to 32 letters and digits, as the server configuration accepts. */
const TOKEN = /^[A-Za-z0-9]{3,32}$/;

export interface WeChatOptions {
  /** The AppID every ciphertext must name as its receiver. */
  app_id?: string;
  tolerance_seconds?: number;
}

const isGet = (req: SourceRequest): boolean => (req.method ?? 'POST').toUpperCase() === 'GET';

/** The Token of a route secret (`<Token>:<EncodingAESKey>` or the Token alone), or undefined when it is neither. */
export function wechatToken(secret: string): string | undefined {
  const keys = wxBizMsgKeys(secret);
  if (keys) return keys.token;
  return TOKEN.test(secret.trim()) ? secret.trim() : undefined;
}

/** `MsgType` of a message (`text`, `image`, `voice`, `location`, `link`, ...), `event.<Event>` of an event (`event.subscribe`). */
export function wechatEventType(payload: Record<string, unknown>): string | undefined {
  const type = typeof payload.MsgType === 'string' && payload.MsgType !== '' ? payload.MsgType : undefined;
  if (type === 'event') return typeof payload.Event === 'string' && payload.Event !== '' ? `event.${payload.Event}` : 'event';
  return type;
}

/**
 * `MsgId` of a message; an event has none, and WeChat's documentation dedupes it by FromUserName + CreateTime (the
 * Event is added so that two events of one second stay apart; a retry repeats all three).
 */
export function wechatDeliveryId(payload: Record<string, unknown>): string | undefined {
  if (typeof payload.MsgId === 'string' && payload.MsgId !== '') return payload.MsgId;
  if (typeof payload.FromUserName === 'string' && typeof payload.CreateTime === 'string' && payload.MsgType === 'event') {
    return `${payload.FromUserName}:${payload.CreateTime}:${String(payload.Event ?? '')}`;
  }
  return undefined;
}

/**
 * A follower's message names no message it answers: it continues the latest answer to its author, the openid in
 * `FromUserName` (the account's customer-service messages go to that openid). Events (subscribe, menu clicks) are no reply.
 */
export function wechatReplyOf(payload: Record<string, unknown>): InboundReply | undefined {
  const openid = typeof payload.FromUserName === 'string' && payload.FromUserName !== '' ? payload.FromUserName : undefined;
  if (!openid || typeof payload.MsgType !== 'string' || payload.MsgType === 'event') return undefined;
  return {
    to: { platform: WECHAT_PLATFORM, chat: openid, messageId: '' },
    userId: openid,
    from: `WeChat user ${openid}`,
    text: typeof payload.Content === 'string' ? payload.Content : '',
  };
}

/**
 * Who wrote a message to the account, followed it or clicked its menu: `FromUserName`, the follower's openid (one per
 * account). An event is the user's own doing, signed by WeChat like a message, so allow_from decides it too (an
 * allowed user's menu click runs, a stranger's follow does not). The URL check names nobody.
 */
export function wechatSenderOf(payload: Record<string, unknown>): InboundSender | undefined {
  const openid = typeof payload.FromUserName === 'string' && payload.FromUserName !== '' ? payload.FromUserName : undefined;
  if (!openid || typeof payload.MsgType !== 'string') return undefined;
  return { id: openid, from: `WeChat user ${openid}` };
}

/** The message of each verified POST, kept from verify (which knows the key that opened it) for parse. */
const opened = new WeakMap<SourceRequest, Record<string, unknown>>();

/** True when the query says the message is encrypted (compatible or safe mode). */
const encryptedMode = (query: Record<string, string>): boolean => query.encrypt_type === 'aes' || query.msg_signature !== undefined;

export const wechatSource = defineSource<WeChatOptions>({
  id: 'wechat',
  payloadSchema: wechatPayloadSchema,
  description:
    'WeChat Official Account messages: the GET URL check (signature, echostr), plaintext XML signed by signature (sha1 of Token, timestamp, nonce) or, in compatible/safe mode, msg_signature and AES with the EncodingAESKey; secret `<Token>:<EncodingAESKey>` or the Token alone',
  options: {
    app_id: { type: 'string', minLength: 1, description: 'The AppID (Basic Configuration): every encrypted message must be encrypted for it' },
    tolerance_seconds: toleranceOption(WECHAT_TOLERANCE_SECONDS),
  },
  style(options) {
    const tolerance = options.tolerance_seconds ?? WECHAT_TOLERANCE_SECONDS;

    /** `signature` over the Token, timestamp and nonce, for the secrets `usable` allows: the matching one, or why not. */
    function plainSignature(req: SourceRequest, secrets: readonly string[], usable: (secret: string) => boolean): SourceVerdict {
      const { signature, timestamp, nonce } = wxBizMsgQuery(req.url);
      if (signature === undefined) return { ok: false, reason: `no signature in the query (is the URL the one in ${SETTINGS}?)`, missing: true };
      if (timestamp === undefined || nonce === undefined) return { ok: false, reason: 'signature comes without timestamp and nonce' };
      const stale = timestampProblem(timestamp, req.receivedAt, tolerance);
      if (stale) return { ok: false, reason: `timestamp: ${stale}` };
      const tokens = secrets.map((secret) => (usable(secret) ? wechatToken(secret) : undefined));
      if (tokens.every((t) => t === undefined)) return { ok: false, reason: `the route's secret is not the Token of ${SETTINGS}` };
      const index = tokens.findIndex((t) => t !== undefined && constantTimeEqual(wxBizMsgSignature(t, timestamp, nonce), signature.toLowerCase()));
      return index === -1
        ? { ok: false, reason: `signature does not match (is the route's secret the Token of ${SETTINGS}?)` }
        : { ok: true, secretIndex: index };
    }

    return {
      headers: [],
      requests: { methods: ['GET'] },
      verify(req, secrets) {
        const query = wxBizMsgQuery(req.url);
        // The URL check is signed like a plaintext message in every mode; echostr comes as it is to be echoed.
        if (isGet(req)) {
          if (query.echostr === undefined) return { ok: false, reason: 'a GET is only the URL check (signature, timestamp, nonce and echostr)', missing: true };
          return plainSignature(req, secrets, () => true);
        }
        const body = wxBizMsgXml(req.rawBody.toString('utf8'));
        if (!body) return { ok: false, reason: 'the body is no WeChat XML message' };
        if (encryptedMode(query)) {
          if (!body.Encrypt) return { ok: false, reason: 'encrypt_type=aes but the body has no <Encrypt>' };
          const result = openWxBizMsg(req, body.Encrypt, secrets, {
            toleranceSeconds: tolerance,
            receiverId: options.app_id,
            receiverOption: 'app_id',
            settings: SETTINGS,
          });
          if (!('index' in result)) return result;
          const message = wxBizMsgXml(result.message);
          if (!message) return { ok: false, reason: 'the decrypted message is no XML' };
          opened.set(req, message);
          return { ok: true, secretIndex: result.index };
        }
        // A route that knows the EncodingAESKey takes only encrypted messages: a plaintext body is signed by nothing.
        if (secrets.length > 0 && secrets.every((secret) => wxBizMsgKeys(secret) !== undefined)) {
          return {
            ok: false,
            reason: `the message is not encrypted, but the route's secret has an EncodingAESKey: choose compatible or safe mode in ${SETTINGS}, or make the secret the Token alone`,
          };
        }
        const verdict = plainSignature(req, secrets, (secret) => wxBizMsgKeys(secret) === undefined);
        if (verdict.ok) opened.set(req, body);
        return verdict;
      },
      parse(req) {
        if (isGet(req)) return wxBizMsgQuery(req.url);
        const message = opened.get(req);
        if (message) return message;
        // A route without authentication verifies nothing: a plaintext message is read as it is, a safe-mode one cannot be.
        const body = wxBizMsgXml(req.rawBody.toString('utf8'));
        if (!body) throw new Error('the body is no WeChat XML message');
        if (body.Encrypt !== undefined && body.MsgType === undefined) {
          throw new Error('the message is encrypted and no <Token>:<EncodingAESKey> secret verified it: give the route its secret');
        }
        return body;
      },
      // The URL check is answered here and never queued: echostr as it came, as plain text.
      handshake(req, payload) {
        if (!isGet(req)) return undefined;
        return { status: 200, body: typeof payload.echostr === 'string' ? payload.echostr : '', contentType: 'text/plain' };
      },
      // "success" tells WeChat the message was taken and needs no passive reply (no answer in 5 s is retried).
      eventAnswer: { status: 200, body: 'success', contentType: 'text/plain' },
      eventType: (_req, payload) => wechatEventType(payload),
      deliveryId: (_req, payload) => wechatDeliveryId(payload),
      replyOf: wechatReplyOf,
      senderOf: wechatSenderOf,
    };
  },
});
