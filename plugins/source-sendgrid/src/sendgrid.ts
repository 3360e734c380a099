// Twilio SendGrid signed Event Webhook: `X-Twilio-Email-Event-Webhook-Signature`, a base64 ECDSA (P-256, SHA-256)
// signature of `X-Twilio-Email-Event-Webhook-Timestamp` + body, checked with the verification PUBLIC key from
// SendGrid's settings. The body is a JSON array of events; the payload is `{ events: [...] }`.
import { createHash, createPublicKey, verify as verifySignature } from 'node:crypto';
import { type SourceRequest, type SourceVerdict, headerText } from '@hookwise/core';
import { missingHeader, timestampProblem, toleranceOption, cachedPublicKeys, publicKeyMatch, defineSource } from '@hookwise/kit/source';
import { sendgridPayloadSchema } from './payload-schema';

export const SIGNATURE_HEADER = 'x-twilio-email-event-webhook-signature';
export const TIMESTAMP_HEADER = 'x-twilio-email-event-webhook-timestamp';
/** SendGrid documents no replay window (its SDK helpers check the signature only); five minutes is the usual one. */
export const DEFAULT_TOLERANCE_SECONDS = 300;
/** The event type of a batch holding several kinds of events. */
export const MIXED_EVENT = 'mixed';

export interface SendgridSourceOptions {
  tolerance_seconds?: number;
}

// A DER ECDSA P-256 signature is at most 72 bytes: 96 base64 characters. Anything far longer is not one.
const BASE64 = /^[A-Za-z0-9+/]{8,200}={0,2}$/;

/**
 * The P-256 public key a route secret holds: the base64 DER (SubjectPublicKeyInfo) string SendGrid shows as the
 * "Verification Key", or the same key as PEM. Undefined for anything else (another curve included).
 */
export const sendgridPublicKey = cachedPublicKeys((secret) => {
  const text = secret.trim();
  const candidate = text.includes('-----BEGIN')
    ? createPublicKey({ key: text, format: 'pem' })
    : /^[A-Za-z0-9+/\s]+={0,2}$/.test(text)
      ? createPublicKey({ key: Buffer.from(text.replace(/\s+/g, ''), 'base64'), format: 'der', type: 'spki' })
      : undefined;
  return candidate?.asymmetricKeyType === 'ec' && candidate.asymmetricKeyDetails?.namedCurve === 'prime256v1' ? candidate : undefined;
});

export function verifySendgrid(req: SourceRequest, secrets: readonly string[], toleranceSeconds = DEFAULT_TOLERANCE_SECONDS): SourceVerdict {
  const signature = headerText(req.headers, SIGNATURE_HEADER);
  if (signature === undefined) return missingHeader(SIGNATURE_HEADER);
  const timestamp = headerText(req.headers, TIMESTAMP_HEADER);
  if (timestamp === undefined) return { ok: false, reason: `missing ${TIMESTAMP_HEADER} header (it is part of the signed content)` };
  if (!BASE64.test(signature)) return { ok: false, reason: `${SIGNATURE_HEADER} is not a base64 ECDSA signature` };
  const signed = Buffer.concat([Buffer.from(timestamp, 'utf8'), req.rawBody]);
  const bytes = Buffer.from(signature, 'base64');
  // DER-encoded (r, s), as SendGrid signs and its SDKs read it.
  const check = (key: Parameters<typeof verifySignature>[2]) => verifySignature('sha256', signed, { key, dsaEncoding: 'der' } as never, bytes);
  const match = publicKeyMatch(secrets, sendgridPublicKey, check, 'a P-256 public key in base64 or PEM');
  if (match.index < 0) return { ok: false, reason: 'reason' in match ? match.reason : 'no key verifies' };
  const index = match.index;
  const problem = timestampProblem(timestamp, req.receivedAt, toleranceSeconds);
  return problem ? { ok: false, reason: `${TIMESTAMP_HEADER}: ${problem}` } : { ok: true, secretIndex: index };
}

/** The batch as `{ events: [...] }`; undefined (400) when the body is not a JSON array. */
export function parseSendgrid(req: SourceRequest): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(req.rawBody.toString('utf8'));
    return Array.isArray(value) ? { events: value } : undefined;
  } catch {
    return undefined;
  }
}

function eventsOf(payload: Record<string, unknown>): Array<Record<string, unknown>> {
  const events = payload.events;
  if (!Array.isArray(events)) return [];
  return events.filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null && !Array.isArray(e));
}

/** The kind of every event in the batch when they share one (`delivered`, `bounce`, `open`, ...), else `mixed`. */
export function sendgridEventType(payload: Record<string, unknown>): string | undefined {
  const kinds = new Set(
    eventsOf(payload)
      .map((e) => e.event)
      .filter((k): k is string => typeof k === 'string' && k !== ''),
  );
  if (kinds.size === 0) return undefined;
  return kinds.size === 1 ? [...kinds][0] : MIXED_EVENT;
}

/**
 * A batch of one event: its `sg_event_id`. Otherwise `batch-<32 hex digits>`: the SHA-256 of the batch's sorted
 * `sg_event_id`s (of the raw body when there are none). The same batch posted again gets the same id; a batch
 * regrouped differently gets another one, so its events are processed again rather than lost.
 */
export function sendgridDeliveryId(req: SourceRequest, payload: Record<string, unknown>): string {
  const events = eventsOf(payload);
  const ids = events.map((e) => e.sg_event_id).filter((id): id is string => typeof id === 'string' && id !== '');
  if (events.length === 1 && ids.length === 1) return ids[0];
  const hash = createHash('sha256');
  if (ids.length > 0) hash.update([...ids].sort().join('\n'));
  else hash.update(req.rawBody);
  return `batch-${hash.digest('hex').slice(0, 32)}`;
}

export const sendgridSource = defineSource<SendgridSourceOptions>({
  id: 'sendgrid',
  payloadSchema: sendgridPayloadSchema,
  description: 'Twilio SendGrid signed Event Webhook: ECDSA P-256 signature of timestamp + body with the verification key; {events: [...]}',
  options: {
    tolerance_seconds: {
      ...toleranceOption(DEFAULT_TOLERANCE_SECONDS),
      description: `Replay window: requests whose X-Twilio-Email-Event-Webhook-Timestamp is further than this from now are refused (default ${DEFAULT_TOLERANCE_SECONDS} s; SendGrid documents none).`,
    },
  },
  style(options) {
    const tolerance = options.tolerance_seconds ?? DEFAULT_TOLERANCE_SECONDS;
    return {
      headers: [SIGNATURE_HEADER, TIMESTAMP_HEADER],
      verify: (req, secrets) => verifySendgrid(req, secrets, tolerance),
      parse: parseSendgrid,
      eventType: (_req, payload) => sendgridEventType(payload),
      deliveryId: sendgridDeliveryId,
    };
  },
});
