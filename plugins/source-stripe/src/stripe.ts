// Stripe: `Stripe-Signature: t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` keyed with the endpoint's whsec_ secret.
import { headerValue, type SourceRequest, type SourceVerdict } from '@hookwise/core';
import {
  MAX_SIGNATURE_ITEMS,
  anyConstantTimeEqual,
  hmacDigest,
  missingHeader,
  parseSignatureList,
  signatureValues,
  timestampProblem,
  toleranceOption,
  verdictForSecrets,
  defineSource,
} from '@hookwise/kit/source';
import { stripePayloadSchema } from './payload-schema';

export const SIGNATURE_HEADER = 'stripe-signature';
/** Stripe's libraries' DEFAULT_TOLERANCE. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface StripeOptions {
  tolerance_seconds?: number;
}

const HEX_SHA256 = /^[0-9a-f]{64}$/;
// A real header carries one v1 per active secret (two while the endpoint's secret is rolled); far more is abuse.
const MAX_SIGNATURES = MAX_SIGNATURE_ITEMS;

const stringField = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

export const stripeSource = defineSource<StripeOptions>({
  id: 'stripe',
  payloadSchema: stripePayloadSchema,
  description: 'Stripe: Stripe-Signature (t=, v1 HMAC-SHA256 hex of "<t>.<body>"), 300 s replay window',
  options: { tolerance_seconds: toleranceOption(DEFAULT_TOLERANCE_SECONDS) },
  style(options) {
    const tolerance = options.tolerance_seconds ?? DEFAULT_TOLERANCE_SECONDS;

    function verify(req: SourceRequest, secrets: readonly string[]): SourceVerdict {
      const header = headerValue(req.headers, SIGNATURE_HEADER);
      if (header === undefined) return missingHeader(SIGNATURE_HEADER);
      const pairs = parseSignatureList(header, ',');
      const timestamp = signatureValues(pairs, 't')[0];
      if (timestamp === undefined) return { ok: false, reason: 'Stripe-Signature has no t= timestamp' };
      if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'the Stripe-Signature t= value is not a number of seconds' };
      // v0 signatures are Stripe's legacy test-mode scheme; like Stripe's own libraries, only v1 is trusted.
      const offered = signatureValues(pairs, 'v1').map((v) => v.toLowerCase());
      if (offered.length === 0) return { ok: false, reason: 'Stripe-Signature has no v1 signature' };
      if (offered.length > MAX_SIGNATURES)
        return { ok: false, reason: `Stripe-Signature holds ${offered.length} v1 signatures (at most ${MAX_SIGNATURES} are read)` };
      if (!offered.some((v) => HEX_SHA256.test(v))) return { ok: false, reason: 'no Stripe-Signature v1 value is a 64-digit hex digest' };

      const signed = Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), req.rawBody]);
      const verdict = verdictForSecrets(
        secrets,
        // The whole endpoint secret, whsec_ prefix included, is the HMAC key.
        (secret) => anyConstantTimeEqual(offered, hmacDigest('sha256', secret, signed, 'hex')),
        'no v1 signature matches (is the secret the endpoint signing secret, whsec_..., of this endpoint?)',
      );
      if (!verdict.ok) return verdict;
      const problem = timestampProblem(timestamp, req.receivedAt, tolerance);
      return problem ? { ok: false, reason: problem } : verdict;
    }

    return {
      headers: [SIGNATURE_HEADER],
      verify,
      // `payment_intent.succeeded`, `customer.subscription.updated`, ... (thin v2 events: `v1.billing.meter.error_report_triggered`).
      eventType: (_req, payload) => stringField(payload.type),
      // The event's id (evt_...) is the same on every retry and on a resend from the Dashboard.
      deliveryId: (_req, payload) => stringField(payload.id),
    };
  },
});
