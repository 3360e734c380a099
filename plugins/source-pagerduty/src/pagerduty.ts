// PagerDuty v3 webhooks: `X-PagerDuty-Signature: v1=<hex HMAC-SHA256 of the body>[,v1=...]` (one per signing
// secret while PagerDuty rotates one), the event in the payload's `event.event_type`, the delivery in `X-Webhook-Id`.
import { headerValue, type HeaderMap, type SourceVerdict } from '@hookwise/core';
import { anyConstantTimeEqual, hmacSha256Hex, missingHeader, parseSignatureList, signatureValues, verdictForSecrets, defineSource } from '@hookwise/kit/source';
import { pagerDutyPayloadSchema } from './payload-schema';

export const SIGNATURE_HEADER = 'x-pagerduty-signature';
/** Unique to a webhook and repeated on each delivery attempt: PagerDuty's documented key for de-duplication. */
export const WEBHOOK_ID_HEADER = 'x-webhook-id';
/** The subscription (`PXXXXXX`) the webhook belongs to; informative only, it is not signed. */
export const SUBSCRIPTION_HEADER = 'x-webhook-subscription';
/** What PagerDuty sends when a subscription is tested ("Send Test Event"). */
export const PING_EVENT = 'pagey.ping';

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

function eventOf(payload: Record<string, unknown>): Record<string, unknown> | undefined {
  const event = payload.event;
  return event !== null && typeof event === 'object' && !Array.isArray(event) ? (event as Record<string, unknown>) : undefined;
}

function stringField(object: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = object?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function verifyPagerDutySignature(headers: HeaderMap, rawBody: Buffer, secrets: readonly string[]): SourceVerdict {
  const value = headerValue(headers, SIGNATURE_HEADER);
  if (value === undefined) return missingHeader(SIGNATURE_HEADER);
  // Versions other than v1 (none exist yet) are skipped, as PagerDuty's instructions say.
  const signatures = signatureValues(parseSignatureList(value, ','), 'v1')
    .map((s) => s.toLowerCase())
    .filter((s) => HEX_SHA256.test(s));
  if (signatures.length === 0) return { ok: false, reason: `${SIGNATURE_HEADER} holds no v1=<64 hex digits> signature` };
  return verdictForSecrets(secrets, (secret) => anyConstantTimeEqual(signatures, hmacSha256Hex(secret, rawBody)));
}

export const pagerDutySource = defineSource({
  id: 'pagerduty',
  payloadSchema: pagerDutyPayloadSchema,
  description: 'PagerDuty v3 webhooks: X-PagerDuty-Signature (v1=HMAC-SHA256 hex, several during rotation), event.event_type, X-Webhook-Id',
  style() {
    return {
      headers: [SIGNATURE_HEADER, WEBHOOK_ID_HEADER],
      verify: (req, secrets) => verifyPagerDutySignature(req.headers, req.rawBody, secrets),
      eventType: (_req, payload) => stringField(eventOf(payload), 'event_type'),
      // `event.id` is the same for every subscription the event goes to; X-Webhook-Id is this subscription's webhook.
      deliveryId: (req, payload) => headerValue(req.headers, WEBHOOK_ID_HEADER) ?? stringField(eventOf(payload), 'id'),
      // A test event carries nothing to act on: answer it so that PagerDuty shows the subscription working, and
      // queue nothing (no agent run for "Hello from your friend Pagey!").
      handshake: (_req, payload) =>
        stringField(eventOf(payload), 'event_type') === PING_EVENT ? { status: 200, body: { status: 'pong', event: PING_EVENT } } : undefined,
    };
  },
});
