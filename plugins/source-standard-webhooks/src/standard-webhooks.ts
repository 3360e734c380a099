// Standard Webhooks (Svix and every sender built on the spec): `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`.

import {
  STANDARD_WEBHOOKS_HEADERS,
  STANDARD_WEBHOOKS_TOLERANCE_SECONDS,
  SVIX_HEADERS,
  standardWebhooksHeaders,
  toleranceOption,
  verifyStandardWebhook,
  type StandardWebhooksSecretEncoding,
  defineSource,
} from '@hookwise/kit/source';
import { standardWebhooksPayloadSchema } from './payload-schema';

export const SECRET_PREFIX = 'whsec_';
/** The spec's suggested replay window, and the default of its reference libraries. */
export const DEFAULT_TOLERANCE_SECONDS = STANDARD_WEBHOOKS_TOLERANCE_SECONDS;

export interface StandardWebhooksOptions {
  tolerance_seconds?: number;
  secret_encoding?: StandardWebhooksSecretEncoding;
}

export const standardWebhooksSource = defineSource<StandardWebhooksOptions>({
  id: 'standard-webhooks',
  payloadSchema: standardWebhooksPayloadSchema,
  aliases: ['svix'],
  description: 'Standard Webhooks / Svix: webhook-id, webhook-timestamp, webhook-signature (v1 HMAC-SHA256); svix-* names too',
  options: {
    tolerance_seconds: toleranceOption(DEFAULT_TOLERANCE_SECONDS),
    secret_encoding: {
      type: 'string',
      enum: ['auto', 'base64', 'raw'],
      default: 'auto',
      description:
        "How a route secret becomes the key: 'auto' decodes whsec_<base64> and tries a secret without the prefix both decoded and as raw bytes; 'base64' always decodes; 'raw' never does.",
    },
  },
  style(options) {
    const verifyOptions = {
      toleranceSeconds: options.tolerance_seconds ?? DEFAULT_TOLERANCE_SECONDS,
      encoding: options.secret_encoding ?? 'auto',
      svixHeaders: true,
    };
    const { id, timestamp, signature } = STANDARD_WEBHOOKS_HEADERS;
    return {
      headers: [signature, SVIX_HEADERS.signature, id, timestamp, SVIX_HEADERS.id, SVIX_HEADERS.timestamp],
      verify: (req, secrets) => verifyStandardWebhook(req.headers, req.rawBody, secrets, req.receivedAt, verifyOptions),
      // The spec's payload structure: a full-stop delimited `type` such as `invoice.paid`.
      eventType: (_req, payload) => (typeof payload.type === 'string' && payload.type !== '' ? payload.type : undefined),
      // webhook-id is the spec's idempotency key: the same on every retry of a message.
      deliveryId: (req) => standardWebhooksHeaders(req.headers, true).id || undefined,
    };
  },
});
