// Shopify: `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the raw body>` keyed with the app's client secret.
import { headerValue, type SourceRequest, type SourceVerdict } from '@hookwise/core';
import { constantTimeEqual, hmacDigest, missingHeader, verdictForSecrets, defineSource } from '@hookwise/kit/source';
import { shopifyPayloadSchema } from './payload-schema';

export const SIGNATURE_HEADER = 'x-shopify-hmac-sha256';
export const TOPIC_HEADER = 'x-shopify-topic';
export const WEBHOOK_ID_HEADER = 'x-shopify-webhook-id';

// A SHA-256 digest is 32 bytes: 43 base64 characters and one `=`.
const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/;

export const shopifySource = defineSource({
  id: 'shopify',
  payloadSchema: shopifyPayloadSchema,
  description: 'Shopify: X-Shopify-Hmac-Sha256 (base64 HMAC-SHA256 of the body), X-Shopify-Topic, X-Shopify-Webhook-Id',
  style() {
    function verify(req: SourceRequest, secrets: readonly string[]): SourceVerdict {
      const header = headerValue(req.headers, SIGNATURE_HEADER);
      if (header === undefined) return missingHeader(SIGNATURE_HEADER);
      const offered = header.trim();
      if (!BASE64_SHA256.test(offered)) return { ok: false, reason: `${SIGNATURE_HEADER} is not a base64 SHA-256 digest` };
      // Nothing else is signed: X-Shopify-Triggered-At could be rewritten, so there is no replay window to check.
      return verdictForSecrets(
        secrets,
        (secret) => secret !== '' && constantTimeEqual(offered, hmacDigest('sha256', secret, req.rawBody, 'base64')),
        "digest does not match (is the secret the app's client secret, or the store's webhook signing key for webhooks made in the admin?)",
      );
    }

    return {
      headers: [SIGNATURE_HEADER, TOPIC_HEADER, WEBHOOK_ID_HEADER],
      verify,
      // `orders/create`, `products/update`, `app/uninstalled`, `customers/data_request`.
      eventType: (req) => headerValue(req.headers, TOPIC_HEADER)?.trim() || undefined,
      // One per delivery and kept on retries; X-Shopify-Event-Id is shared by every topic one merchant action fires.
      deliveryId: (req) => headerValue(req.headers, WEBHOOK_ID_HEADER)?.trim() || undefined,
    };
  },
});
