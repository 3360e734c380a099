// Twitch EventSub webhooks: `Twitch-Eventsub-Message-Signature: sha256=<hex HMAC-SHA256 of message id + timestamp +
// body>` keyed with the subscription's secret, an RFC3339 timestamp no older than 10 minutes, the callback
// verification challenge, and revocations (logged and acknowledged, never queued).
import { type HandshakeAnswer, type PluginLogger, type SourceRequest, type SourceVerdict, headerText } from '@hookwise/core';
import { constantTimeEqual, hmacDigest, missingHeader, timestampProblem, toleranceOption, verdictForSecrets, defineSource } from '@hookwise/kit/source';
import { twitchPayloadSchema } from './payload-schema';

export const SIGNATURE_HEADER = 'twitch-eventsub-message-signature';
export const MESSAGE_ID_HEADER = 'twitch-eventsub-message-id';
export const TIMESTAMP_HEADER = 'twitch-eventsub-message-timestamp';
export const MESSAGE_TYPE_HEADER = 'twitch-eventsub-message-type';
export const SUBSCRIPTION_TYPE_HEADER = 'twitch-eventsub-subscription-type';
/** Twitch: "make sure the value in the timestamp header isn't older than 10 minutes". */
export const DEFAULT_TOLERANCE_SECONDS = 600;

export const MESSAGE_TYPES = { notification: 'notification', verification: 'webhook_callback_verification', revocation: 'revocation' } as const;

export interface TwitchSourceOptions {
  tolerance_seconds?: number;
}

const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;
// RFC3339 as Twitch writes it (nanoseconds, `Z`), with any fraction and a numeric offset also accepted.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Seconds since the epoch (with the fraction) of an RFC3339 time, or undefined when it is not one. Written out
 * instead of Date.parse, which accepts many other forms and reads nanoseconds only by accident of the engine.
 */
export function rfc3339Seconds(value: string): number | undefined {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  const fraction = m[7] ? Number(m[7]) : 0;
  const zone = m[8];
  const offsetMinutes = zone === 'Z' || zone === 'z' ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  return ms / 1000 + fraction - offsetMinutes * 60;
}

/** What Twitch signs: the message id, the timestamp (as sent) and the raw body, concatenated. */
export function signedContent(messageId: string, timestamp: string, rawBody: Buffer): Buffer {
  return Buffer.concat([Buffer.from(messageId + timestamp, 'utf8'), rawBody]);
}

export function verifyTwitch(req: SourceRequest, secrets: readonly string[], toleranceSeconds = DEFAULT_TOLERANCE_SECONDS): SourceVerdict {
  const signature = headerText(req.headers, SIGNATURE_HEADER);
  if (signature === undefined) return missingHeader(SIGNATURE_HEADER);
  const messageId = headerText(req.headers, MESSAGE_ID_HEADER);
  if (messageId === undefined) return { ok: false, reason: `missing ${MESSAGE_ID_HEADER} header (it is part of the signed content)` };
  const timestamp = headerText(req.headers, TIMESTAMP_HEADER);
  if (timestamp === undefined) return { ok: false, reason: `missing ${TIMESTAMP_HEADER} header (it is part of the signed content)` };
  const match = SIGNATURE.exec(signature);
  if (!match) return { ok: false, reason: `${SIGNATURE_HEADER} is not 'sha256=' and a 64-digit hex digest` };
  const digest = match[1].toLowerCase();
  const content = signedContent(messageId, timestamp, req.rawBody);
  const verdict = verdictForSecrets(secrets, (secret) => constantTimeEqual(digest, hmacDigest('sha256', secret, content, 'hex')));
  if (!verdict.ok) return verdict;
  const seconds = rfc3339Seconds(timestamp);
  if (seconds === undefined) return { ok: false, reason: `${TIMESTAMP_HEADER} is not an RFC3339 time` };
  const problem = timestampProblem(seconds, req.receivedAt, toleranceSeconds);
  return problem ? { ok: false, reason: `${TIMESTAMP_HEADER}: ${problem}` } : verdict;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function subscriptionField(payload: Record<string, unknown>, field: string): string | undefined {
  const subscription = payload.subscription;
  if (!isPlainObject(subscription)) return undefined;
  const value = subscription[field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `Twitch-Eventsub-Subscription-Type` (`channel.follow`, `stream.online`, ...), else the body's `subscription.type`. */
export function twitchEventType(req: SourceRequest, payload: Record<string, unknown>): string | undefined {
  return headerText(req.headers, SUBSCRIPTION_TYPE_HEADER) ?? subscriptionField(payload, 'type');
}

/** `Twitch-Eventsub-Message-Id`: Twitch resends a message it is unsure you received under the same id. */
export function twitchDeliveryId(req: SourceRequest): string | undefined {
  return headerText(req.headers, MESSAGE_ID_HEADER);
}

/**
 * `webhook_callback_verification`: 200 with the raw `challenge` as text/plain, which enables the subscription.
 * `revocation`: a warning in the log (the subscription type and why Twitch revoked it) and a 200 (Twitch only asks
 * for a 2xx), nothing queued. `notification` (and any other type) goes on to the queue.
 */
export function twitchHandshake(req: SourceRequest, payload: Record<string, unknown>, logger?: PluginLogger): HandshakeAnswer | undefined {
  const messageType = headerText(req.headers, MESSAGE_TYPE_HEADER);
  if (messageType === MESSAGE_TYPES.verification) {
    const challenge = payload.challenge;
    if (typeof challenge !== 'string' || challenge === '') return { status: 400, body: { error: 'webhook_callback_verification without a challenge' } };
    return { status: 200, body: challenge, contentType: 'text/plain' };
  }
  if (messageType === MESSAGE_TYPES.revocation) {
    const type = twitchEventType(req, payload) ?? '(unknown type)';
    const status = subscriptionField(payload, 'status') ?? '(no status)';
    logger?.warn(`Twitch revoked the EventSub subscription ${type} (status ${status}); it must be created again to receive its events`, {
      subscription_type: type,
      subscription_status: status,
      subscription_id: subscriptionField(payload, 'id'),
      message_id: twitchDeliveryId(req),
    });
    return { status: 200, body: { status: 'acknowledged', message_type: MESSAGE_TYPES.revocation } };
  }
  return undefined;
}

export const twitchSource = defineSource<TwitchSourceOptions>({
  id: 'twitch',
  payloadSchema: twitchPayloadSchema,
  description: 'Twitch EventSub: Twitch-Eventsub-Message-Signature (sha256=HMAC-SHA256 of id + timestamp + body), 10-minute window, challenge, revocation',
  options: { tolerance_seconds: toleranceOption(DEFAULT_TOLERANCE_SECONDS) },
  style(options, ctx) {
    const tolerance = options.tolerance_seconds ?? DEFAULT_TOLERANCE_SECONDS;
    return {
      headers: [SIGNATURE_HEADER, MESSAGE_ID_HEADER, TIMESTAMP_HEADER],
      verify: (req, secrets) => verifyTwitch(req, secrets, tolerance),
      eventType: twitchEventType,
      deliveryId: (req) => twitchDeliveryId(req),
      handshake: (req, payload) => twitchHandshake(req, payload, ctx?.logger),
    };
  },
});
