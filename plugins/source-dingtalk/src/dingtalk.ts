// DingTalk robots that receive messages over HTTP (an internal app's robot, "message receiving mode: HTTP"): when a
// person @-mentions the robot in a group or writes to it alone, DingTalk POSTs the message as JSON with two headers,
// `timestamp` (epoch milliseconds) and `sign` = base64(HmacSHA256(key: the app secret, timestamp + "\n" + app
// secret)); the timestamp must be within an hour of now. The signature covers the timestamp only, not the body, so
// it proves the sender knows the app secret but a captured request's headers stay valid for that hour: the
// README says so. The route's secret is the robot's AppSecret.
import { headerValue, type InboundReply, type InboundSender, type SourceRequest, type SourceVerdict } from '@hookwise/core';
import {
  constantTimeEqual,
  defineSource,
  hmacDigest,
  missingHeader,
  timestampProblem,
  toleranceOption,
  verdictForSecrets,
  payloadString,
  isPayloadObject,
} from '@hookwise/kit/source';
import { dingtalkPayloadSchema } from './payload-schema';

export const SIGN_HEADER = 'sign';
export const TIMESTAMP_HEADER = 'timestamp';
/** The platform name of DingTalk messages, the same as the deliverer's id. */
export const DINGTALK_PLATFORM = 'dingtalk';
/** DingTalk's documented window: the timestamp may differ from now by at most one hour. */
export const DINGTALK_TOLERANCE_SECONDS = 3600;

export interface DingTalkOptions {
  tolerance_seconds?: number;
}

/** The `sign` header for a timestamp: base64 HmacSHA256 keyed with the app secret over `timestamp\nsecret`. */
export function dingtalkSign(timestamp: string, appSecret: string): string {
  return hmacDigest('sha256', appSecret, `${timestamp}\n${appSecret}`, 'base64');
}

const text = payloadString;
const isObject = isPayloadObject;

/** `msgtype`: `text`, `richText`, `picture`, `audio`, `video`, `file`. */
export function dingtalkEventType(payload: Record<string, unknown>): string | undefined {
  return text(payload.msgtype);
}

/** `msgId`: the message's id, the same when DingTalk sends it again. */
export function dingtalkDeliveryId(payload: Record<string, unknown>): string | undefined {
  return text(payload.msgId);
}

/** The words of a message: `text.content` (DingTalk keeps the space the @-mention left), or a richText's text parts. */
export function dingtalkMessageText(payload: Record<string, unknown>): string {
  if (isObject(payload.text) && typeof payload.text.content === 'string') return payload.text.content.trim();
  const rich = isObject(payload.content) && Array.isArray(payload.content.richText) ? payload.content.richText : [];
  return rich
    .map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : ''))
    .join('')
    .trim();
}

/**
 * A message names no message it answers: it continues the latest answer in its conversation (`conversationId`, a
 * group or a one-to-one chat with the robot), by its author (`senderStaffId`, the user id within the organisation,
 * else the encrypted `senderId`).
 */
export function dingtalkReplyOf(payload: Record<string, unknown>): InboundReply | undefined {
  const chat = text(payload.conversationId);
  const userId = text(payload.senderStaffId) ?? text(payload.senderId);
  if (!chat || !userId) return undefined;
  const nick = text(payload.senderNick);
  const other = text(payload.senderId);
  return {
    to: { platform: DINGTALK_PLATFORM, chat, messageId: '' },
    userId,
    from: `DingTalk user ${userId}${nick ? ` (${nick})` : ''}`,
    text: dingtalkMessageText(payload),
    ...(other && other !== userId ? { alsoAllowedAs: [other] } : {}),
  };
}

/**
 * Who wrote the message: `senderStaffId` (the user id within the organisation; absent for a sender outside it),
 * else the encrypted `senderId`, which allow_from may name too. A message without either names nobody.
 */
export function dingtalkSenderOf(payload: Record<string, unknown>): InboundSender | undefined {
  const staffId = text(payload.senderStaffId);
  const senderId = text(payload.senderId);
  const id = staffId ?? senderId;
  if (!id) return undefined;
  const nick = text(payload.senderNick);
  return {
    id,
    from: `DingTalk user ${id}${nick ? ` (${nick})` : ''}`,
    ...(senderId && senderId !== id ? { alsoAllowedAs: [senderId] } : {}),
  };
}

export const dingtalkSource = defineSource<DingTalkOptions>({
  id: 'dingtalk',
  payloadSchema: dingtalkPayloadSchema,
  description:
    'DingTalk robot messages over HTTP: headers timestamp and sign (base64 HmacSHA256 of timestamp + "\\n" + app secret), within an hour; event type msgtype, delivery id msgId',
  options: { tolerance_seconds: toleranceOption(DINGTALK_TOLERANCE_SECONDS) },
  style(options) {
    const tolerance = options.tolerance_seconds ?? DINGTALK_TOLERANCE_SECONDS;
    return {
      headers: [SIGN_HEADER, TIMESTAMP_HEADER],
      verify(req: SourceRequest, secrets: readonly string[]): SourceVerdict {
        const sign = headerValue(req.headers, SIGN_HEADER);
        if (sign === undefined) return missingHeader(SIGN_HEADER);
        const timestamp = headerValue(req.headers, TIMESTAMP_HEADER);
        if (timestamp === undefined) return { ok: false, reason: `${SIGN_HEADER} comes without the ${TIMESTAMP_HEADER} header it signs` };
        const stale = timestampProblem(timestamp, req.receivedAt, tolerance, 'milliseconds');
        if (stale) return { ok: false, reason: `${TIMESTAMP_HEADER} (epoch milliseconds): ${stale}` };
        return verdictForSecrets(
          secrets,
          (secret) => constantTimeEqual(dingtalkSign(timestamp, secret), sign),
          `${SIGN_HEADER} does not match (is the route's secret the robot's AppSecret?)`,
        );
      },
      eventType: (_req, payload) => dingtalkEventType(payload),
      deliveryId: (_req, payload) => dingtalkDeliveryId(payload),
      replyOf: dingtalkReplyOf,
      senderOf: dingtalkSenderOf,
    };
  },
});
