// WeCom (WeChat Work) app callbacks ("接收消息与事件"): the app's "Receive messages" settings name a URL, a Token and
// an EncodingAESKey. WeCom first checks the URL with a GET (`msg_signature`, `timestamp`, `nonce`, `echostr`) and
// wants echostr decrypted and echoed as plain text within a second; then it POSTs each message as XML whose
// `<Encrypt>` holds the encrypted message, signed by `msg_signature` in the query. Both keys are secrets, so the
// route's secret carries both: `<Token>:<EncodingAESKey>` (a list of them for rotation). `source_options.corp_id`
// makes the receiver id inside every ciphertext be that CorpID.
import { type InboundReply, type InboundSender, type SourceRequest } from '@hookwise/core';
import { defineSource, openWxBizMsg, toleranceOption, wxBizMsgDecrypt, wxBizMsgKeys, wxBizMsgQuery, wxBizMsgXml } from '@hookwise/kit/source';
import { wecomPayloadSchema } from './payload-schema';

export * from './wecom-crypto';

/** The platform name of WeCom messages, the same as the deliverer's id. */
export const WECOM_PLATFORM = 'wecom';
/** WeCom documents no replay window; an hour covers its three retries while refusing old captures. */
export const WECOM_TOLERANCE_SECONDS = 3600;

export interface WeComOptions {
  /** The CorpID (or a third-party suite's SuiteID) every ciphertext must name as its receiver. */
  corp_id?: string;
  tolerance_seconds?: number;
}

const isGet = (req: SourceRequest): boolean => (req.method ?? 'POST').toUpperCase() === 'GET';

/** `MsgType` of a message (`text`, `image`, `voice`, `location`, `link`, ...), `event.<Event>` of an event (`event.click`). */
export function wecomEventType(payload: Record<string, unknown>): string | undefined {
  const type = typeof payload.MsgType === 'string' && payload.MsgType !== '' ? payload.MsgType : undefined;
  if (type === 'event') return typeof payload.Event === 'string' && payload.Event !== '' ? `event.${payload.Event}` : 'event';
  return type;
}

/** `MsgId` of a message; an event has none, and WeCom's documentation dedupes it by FromUserName + CreateTime. */
export function wecomDeliveryId(payload: Record<string, unknown>): string | undefined {
  if (typeof payload.MsgId === 'string' && payload.MsgId !== '') return payload.MsgId;
  if (typeof payload.FromUserName === 'string' && typeof payload.CreateTime === 'string' && payload.MsgType === 'event') {
    return `${payload.FromUserName}:${payload.CreateTime}:${String(payload.Event ?? '')}`;
  }
  return undefined;
}

/**
 * A person's message to the app names no message it answers: it continues the latest answer to its author (an
 * app's answers go to a user, `FromUserName`). Events (menu clicks, entering the app) are no reply.
 */
export function wecomReplyOf(payload: Record<string, unknown>): InboundReply | undefined {
  const userId = typeof payload.FromUserName === 'string' && payload.FromUserName !== '' ? payload.FromUserName : undefined;
  if (!userId || typeof payload.MsgType !== 'string' || payload.MsgType === 'event') return undefined;
  return {
    to: { platform: WECOM_PLATFORM, chat: userId, messageId: '' },
    userId,
    from: `WeCom user ${userId}`,
    text: typeof payload.Content === 'string' ? payload.Content : '',
  };
}

/**
 * Who wrote a message to the app or clicked its menu: `FromUserName`, the member's UserID. An event (a menu click,
 * entering the app) is the member's own doing, signed by WeCom like a message, so allow_from decides it too (an
 * allowed member's menu click runs, a stranger's does not). WeCom's own notices (contact changes, from `sys`) and the
 * URL check name nobody.
 */
export function wecomSenderOf(payload: Record<string, unknown>): InboundSender | undefined {
  const userId = typeof payload.FromUserName === 'string' && payload.FromUserName !== '' ? payload.FromUserName : undefined;
  if (!userId || userId === 'sys' || typeof payload.MsgType !== 'string') return undefined;
  return { id: userId, from: `WeCom user ${userId}` };
}

/** The decrypted message of each verified POST, kept from verify (which knows the key that opened it) for parse. */
const opened = new WeakMap<SourceRequest, Record<string, unknown>>();

export const wecomSource = defineSource<WeComOptions>({
  id: 'wecom',
  payloadSchema: wecomPayloadSchema,
  description:
    'WeCom (WeChat Work) app callbacks: msg_signature (sha1 of Token, timestamp, nonce, ciphertext), AES-256-CBC with the EncodingAESKey, the GET echostr check; secret `<Token>:<EncodingAESKey>`',
  options: {
    corp_id: { type: 'string', minLength: 1, description: 'The CorpID (My Company > Company Info): every message must be encrypted for it' },
    tolerance_seconds: toleranceOption(WECOM_TOLERANCE_SECONDS),
  },
  style(options) {
    const tolerance = options.tolerance_seconds ?? WECOM_TOLERANCE_SECONDS;

    /** Checks msg_signature over `encrypted` and opens it with the matching key; the message, or why not. */
    const open = (req: SourceRequest, encrypted: string, secrets: readonly string[]) =>
      openWxBizMsg(req, encrypted, secrets, {
        toleranceSeconds: tolerance,
        receiverId: options.corp_id,
        receiverOption: 'corp_id',
        settings: `the app's "Receive messages" settings`,
      });

    return {
      headers: [],
      requests: { methods: ['GET'] },
      verify(req, secrets) {
        if (isGet(req)) {
          const echostr = wxBizMsgQuery(req.url).echostr;
          if (echostr === undefined) return { ok: false, reason: 'a GET is only the URL check (msg_signature, timestamp, nonce and echostr)', missing: true };
          const result = open(req, echostr, secrets);
          return 'index' in result ? { ok: true, secretIndex: result.index } : result;
        }
        const envelope = wxBizMsgXml(req.rawBody.toString('utf8'));
        if (!envelope?.Encrypt) return { ok: false, reason: 'the body is no WeCom XML with <Encrypt>', missing: true };
        const result = open(req, envelope.Encrypt, secrets);
        if (!('index' in result)) return result;
        const message = wxBizMsgXml(result.message);
        if (!message) return { ok: false, reason: 'the decrypted message is no XML' };
        opened.set(req, message);
        return { ok: true, secretIndex: result.index };
      },
      parse(req) {
        if (isGet(req)) return wxBizMsgQuery(req.url);
        const message = opened.get(req);
        // A route without authentication verifies nothing, so the message has no key to open it with.
        if (!message) throw new Error('the message is encrypted and no <Token>:<EncodingAESKey> secret verified it: give the route its secret');
        return message;
      },
      // The URL check is answered here and never queued: echostr decrypted, as plain text.
      handshake(req, payload, secret) {
        if (!isGet(req)) return undefined;
        const keys = wxBizMsgKeys(secret);
        const plain = keys && typeof payload.echostr === 'string' ? wxBizMsgDecrypt(keys.aesKey, payload.echostr) : undefined;
        if (!plain) return { status: 400, body: 'echostr does not decrypt', contentType: 'text/plain' };
        return { status: 200, body: plain.message, contentType: 'text/plain' };
      },
      // An empty 200 tells WeCom the message was taken and needs no passive reply (any other answer is retried).
      eventAnswer: { status: 200, body: '', contentType: 'text/plain' },
      eventType: (_req, payload) => wecomEventType(payload),
      deliveryId: (_req, payload) => wecomDeliveryId(payload),
      replyOf: wecomReplyOf,
      senderOf: wecomSenderOf,
    };
  },
});
