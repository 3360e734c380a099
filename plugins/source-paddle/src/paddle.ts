// Paddle Billing webhooks: `Paddle-Signature: ts=<unix seconds>;h1=<hex HMAC-SHA256 of "<ts>:<body>">` (several h1
// while Paddle rotates the destination's secret key), the event in the payload's `event_type`, the delivery in its
// `event_id` (or `notification_id`).
import { headerValue, type HeaderMap, type SourceVerdict } from '@hookwise/core';
import {
  anyConstantTimeEqual,
  hmacSha256Hex,
  missingHeader,
  parseSignatureList,
  signatureValues,
  timestampProblem,
  toleranceOption,
  verdictForSecrets,
  defineSource,
} from '@hookwise/kit/source';
import { paddlePayloadSchema } from './payload-schema';

export const SIGNATURE_HEADER = 'paddle-signature';

/**
 * The replay window. Paddle's SDKs refuse a signature older than 5 s, which works because Paddle signs each
 * delivery attempt as it sends it; but 5 s also refuses every request once the gateway's clock is a few seconds
 * off Paddle's. The payload's `event_id` is signed and the gateway remembers delivery ids for an hour, so a
 * request replayed inside a wider window is answered as a duplicate anyway: 300 s costs no safety and survives
 * clock skew. `tolerance_seconds: 5` gives the SDK's behaviour.
 */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface PaddleSourceOptions {
  tolerance_seconds?: number;
  /**
   * `event_id` (default, what Paddle recommends for idempotency): one event counts once, however many
   * notification destinations send it here. `notification_id`: each notification counts, so a replay requested
   * through Paddle's API (a new notification for the same event) is processed again.
   */
  delivery_id?: 'event_id' | 'notification_id';
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const UNIX_SECONDS = /^\d{1,12}$/;

export function verifyPaddleSignature(
  headers: HeaderMap,
  rawBody: Buffer,
  secrets: readonly string[],
  receivedAt: number,
  toleranceSeconds: number,
): SourceVerdict {
  const value = headerValue(headers, SIGNATURE_HEADER);
  if (value === undefined) return missingHeader(SIGNATURE_HEADER);
  const pairs = parseSignatureList(value, ';');
  const timestamps = signatureValues(pairs, 'ts');
  if (timestamps.length !== 1 || !UNIX_SECONDS.test(timestamps[0])) {
    return { ok: false, reason: `${SIGNATURE_HEADER} must hold exactly one ts=<unix seconds>` };
  }
  const ts = timestamps[0];
  const signatures = signatureValues(pairs, 'h1')
    .map((s) => s.toLowerCase())
    .filter((s) => HEX_SHA256.test(s));
  if (signatures.length === 0) return { ok: false, reason: `${SIGNATURE_HEADER} holds no h1=<64 hex digits> signature` };
  // The signed payload is "<ts>:<raw body>", built from bytes so that a body that is not valid UTF-8 is hashed
  // exactly as received (the SDK's string form is the same bytes for every valid body).
  const signed = Buffer.concat([Buffer.from(`${ts}:`, 'ascii'), rawBody]);
  const verdict = verdictForSecrets(secrets, (secret) => anyConstantTimeEqual(signatures, hmacSha256Hex(secret, signed)));
  if (!verdict.ok) return verdict;
  // The time is checked once the signature is known to be Paddle's, so a stale-time reason is never given for
  // a forged request.
  const problem = timestampProblem(ts, receivedAt, toleranceSeconds);
  return problem === undefined ? verdict : { ok: false, reason: problem };
}

function stringField(payload: Record<string, unknown>, key: string): string | undefined {
  const value = payload[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export const paddleSource = defineSource<PaddleSourceOptions>({
  id: 'paddle',
  payloadSchema: paddlePayloadSchema,
  description: 'Paddle Billing: Paddle-Signature (ts=..;h1=HMAC-SHA256 of "ts:body"), event_type, event_id',
  options: {
    tolerance_seconds: {
      ...toleranceOption(DEFAULT_TOLERANCE_SECONDS),
      description: `Replay window: requests whose signed ts is further than this from now are refused (default ${DEFAULT_TOLERANCE_SECONDS} s; Paddle's SDKs use 5 s, which refuses everything when the clocks differ by a few seconds, while the signed event_id already makes a replay inside the window a duplicate).`,
    },
    delivery_id: {
      type: 'string',
      enum: ['event_id', 'notification_id'],
      default: 'event_id',
      description:
        "What identifies a delivery for duplicates: 'event_id' (Paddle's recommendation: an event counts once) or 'notification_id' (each notification, so replays requested through Paddle's API run again).",
    },
  },
  style(options) {
    const tolerance = options.tolerance_seconds ?? DEFAULT_TOLERANCE_SECONDS;
    const [first, second] = options.delivery_id === 'notification_id' ? ['notification_id', 'event_id'] : ['event_id', 'notification_id'];
    return {
      headers: [SIGNATURE_HEADER],
      verify: (req, secrets) => verifyPaddleSignature(req.headers, req.rawBody, secrets, req.receivedAt, tolerance),
      eventType: (_req, payload) => stringField(payload, 'event_type'),
      deliveryId: (_req, payload) => stringField(payload, first) ?? stringField(payload, second),
    };
  },
});
