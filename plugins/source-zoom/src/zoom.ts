// Zoom webhooks: `x-zm-signature: v0=<hex HMAC-SHA256 of "v0:<x-zm-request-timestamp>:<body>">` keyed with the
// app's Secret Token, a replay window on that timestamp, and the `endpoint.url_validation` challenge.
import { createHash } from 'node:crypto';
import { type SourceRequest, type SourceVerdict, headerText } from '@hookwise/core';
import { constantTimeEqual, hmacDigest, missingHeader, timestampProblem, toleranceOption, verdictForSecrets, defineSource } from '@hookwise/kit/source';
import { zoomPayloadSchema } from './payload-schema';

export const SIGNATURE_HEADER = 'x-zm-signature';
export const TIMESTAMP_HEADER = 'x-zm-request-timestamp';
export const VALIDATION_EVENT = 'endpoint.url_validation';
/**
 * Zoom documents no replay window. Five minutes is the common one (Stripe, Slack, Standard Webhooks, and the
 * webhooks.fyi sample for Zoom), far wider than the three seconds Zoom waits for an answer. The header is the
 * request's own timestamp, so each retry (5, 25 and 85 minutes later) is expected to carry a new one.
 */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface ZoomSourceOptions {
  tolerance_seconds?: number;
}

const SIGNATURE = /^v0=([0-9a-fA-F]{64})$/;

/** What Zoom signs: `v0:<timestamp>:` followed by the raw body bytes. */
export function signedContent(timestamp: string, rawBody: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`v0:${timestamp}:`, 'utf8'), rawBody]);
}

export function verifyZoom(req: SourceRequest, secrets: readonly string[], toleranceSeconds = DEFAULT_TOLERANCE_SECONDS): SourceVerdict {
  const signature = headerText(req.headers, SIGNATURE_HEADER);
  if (signature === undefined) return missingHeader(SIGNATURE_HEADER);
  const timestamp = headerText(req.headers, TIMESTAMP_HEADER);
  if (timestamp === undefined) return { ok: false, reason: `missing ${TIMESTAMP_HEADER} header (it is part of the signed content)` };
  const match = SIGNATURE.exec(signature);
  if (!match) return { ok: false, reason: `${SIGNATURE_HEADER} is not 'v0=' and a 64-digit hex digest` };
  const digest = match[1].toLowerCase();
  const content = signedContent(timestamp, req.rawBody);
  const verdict = verdictForSecrets(secrets, (secret) => constantTimeEqual(digest, hmacDigest('sha256', secret, content, 'hex')));
  if (!verdict.ok) return verdict;
  // After the signature: a stale timestamp on an authentic request is worth its own reason (a replay or a delay).
  const problem = timestampProblem(timestamp, req.receivedAt, toleranceSeconds);
  return problem ? { ok: false, reason: `${TIMESTAMP_HEADER}: ${problem}` } : verdict;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `event` of the body: `meeting.started`, `recording.completed`, `endpoint.url_validation`, ... */
export function zoomEventType(payload: Record<string, unknown>): string | undefined {
  return typeof payload.event === 'string' && payload.event !== '' ? payload.event : undefined;
}

/**
 * `<event>:<event_ts>:<first 16 hex digits of the body's SHA-256>`. Zoom sends no delivery id that is documented to
 * stay the same on a retry (x-zm-trackingid identifies a request), and a retry posts the same event again. The event
 * name and its time (ms) make the id readable; the body hash keeps apart two events of one kind in the same
 * millisecond (participants joining a large meeting), which event and time alone would wrongly merge.
 */
export function zoomDeliveryId(req: SourceRequest, payload: Record<string, unknown>): string {
  const hash = createHash('sha256').update(req.rawBody).digest('hex').slice(0, 16);
  const eventTs = typeof payload.event_ts === 'number' || typeof payload.event_ts === 'string' ? String(payload.event_ts) : '';
  return [zoomEventType(payload) ?? '', eventTs, hash].filter((part) => part !== '').join(':');
}

/**
 * The answer to `endpoint.url_validation` (sent when the endpoint is saved and every 72 hours):
 * `{ plainToken, encryptedToken }` where encryptedToken is the hex HMAC-SHA256 of plainToken with the Secret Token.
 * The request itself is signed like any other and has been verified before this runs.
 */
export function zoomHandshake(payload: Record<string, unknown>, secret: string) {
  if (payload.event !== VALIDATION_EVENT) return undefined;
  const plainToken = isPlainObject(payload.payload) ? payload.payload.plainToken : undefined;
  if (typeof plainToken !== 'string' || plainToken === '') {
    return { status: 400, body: { error: `${VALIDATION_EVENT} without payload.plainToken` } };
  }
  return { status: 200, body: { plainToken, encryptedToken: hmacDigest('sha256', secret, plainToken, 'hex') } };
}

export const zoomSource = defineSource<ZoomSourceOptions>({
  id: 'zoom',
  payloadSchema: zoomPayloadSchema,
  description: 'Zoom: x-zm-signature (v0=HMAC-SHA256 of v0:<timestamp>:<body>), replay window, endpoint.url_validation',
  options: {
    tolerance_seconds: {
      ...toleranceOption(DEFAULT_TOLERANCE_SECONDS),
      description: `Replay window: requests whose x-zm-request-timestamp is further than this from now are refused (default ${DEFAULT_TOLERANCE_SECONDS} s; Zoom documents none).`,
    },
  },
  style(options) {
    const tolerance = options.tolerance_seconds ?? DEFAULT_TOLERANCE_SECONDS;
    return {
      headers: [SIGNATURE_HEADER, TIMESTAMP_HEADER],
      verify: (req, secrets) => verifyZoom(req, secrets, tolerance),
      eventType: (_req, payload) => zoomEventType(payload),
      deliveryId: zoomDeliveryId,
      handshake: (_req, payload, secret) => zoomHandshake(payload, secret),
    };
  },
});
