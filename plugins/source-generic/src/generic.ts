// The generic style any sender can produce: `X-Webhook-Signature: <hex HMAC-SHA256 of the body>`, `X-Request-ID`.

import { verifyHexHmac, defineSource } from '@hookwise/kit/source';

export const SIGNATURE_HEADER = 'x-webhook-signature';
export const DELIVERY_HEADER = 'x-request-id';

export const genericSource = defineSource({
  id: 'generic',
  description: 'Generic: X-Webhook-Signature (HMAC-SHA256 hex of the body), X-Request-ID, payload event_type',
  style() {
    return {
      headers: [SIGNATURE_HEADER],
      verify: (req, secrets) => verifyHexHmac(req.headers, SIGNATURE_HEADER, req.rawBody, secrets),
      // The event type is the payload's `event_type`, the gateway's fallback for every source.
      deliveryId: DELIVERY_HEADER,
    };
  },
});
