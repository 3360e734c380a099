// Bitbucket webhooks: `X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body>`, the event in `X-Event-Key`, the
// delivery in `X-Request-UUID` (Cloud) or `X-Request-Id` (Data Center, which signs the same way).
import { headerValue } from '@hookwise/core';
import { verifyHexHmac, defineSource } from '@hookwise/kit/source';
import { bitbucketPayloadSchema } from './payload-schema';

/**
 * Bitbucket's signature header. It has GitHub's SHA-1 header name but carries a SHA-256 digest; a GitHub
 * `sha1=` value here is refused, not read as SHA-1.
 */
export const SIGNATURE_HEADER = 'x-hub-signature';
export const EVENT_HEADER = 'x-event-key';
/**
 * Cloud names the delivery `X-Request-UUID` and keeps it across its retries (`X-Attempt-Number` counts them);
 * Data Center names it `X-Request-Id`. `X-Hook-UUID` names the webhook itself, the same on every delivery, so it
 * is never a delivery id.
 */
export const DELIVERY_HEADERS = ['x-request-uuid', 'x-request-id'];
/** The event key of Data Center's "Test connection" button; Cloud has no test delivery. */
export const PING_EVENT = 'diagnostics:ping';

export const bitbucketSource = defineSource({
  id: 'bitbucket',
  payloadSchema: bitbucketPayloadSchema,
  description: 'Bitbucket Cloud and Data Center: X-Hub-Signature (sha256=HMAC-SHA256 hex), X-Event-Key, X-Request-UUID',
  style() {
    return {
      headers: [SIGNATURE_HEADER, EVENT_HEADER],
      verify: (req, secrets) => verifyHexHmac(req.headers, SIGNATURE_HEADER, req.rawBody, secrets, 'sha256='),
      eventType: EVENT_HEADER,
      deliveryId: DELIVERY_HEADERS,
      // Data Center's test button only asks whether the URL answers; queuing it would run an agent on nothing.
      handshake: (req) => (headerValue(req.headers, EVENT_HEADER) === PING_EVENT ? { status: 200, body: { status: 'pong', event: PING_EVENT } } : undefined),
    };
  },
});
