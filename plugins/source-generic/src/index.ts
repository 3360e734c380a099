// The generic style any sender can produce: `X-Webhook-Signature: <hex HMAC-SHA256 of the body>`, `X-Request-ID`.
import { definePlugin, headerValue, type PluginPackageJson, type Source, type SourceContribution } from '@hookwise/core';
import { verifyHexHmac } from '@hookwise/kit';

export const SIGNATURE_HEADER = 'x-webhook-signature';
export const DELIVERY_HEADER = 'x-request-id';

export function createGenericSource(): Source {
  return {
    headers: [SIGNATURE_HEADER],
    verify: (req, secrets) => verifyHexHmac(req.headers, SIGNATURE_HEADER, req.rawBody, secrets),
    // The event type is the payload's `event_type`, the gateway's fallback for every source.
    deliveryId: (req) => headerValue(req.headers, DELIVERY_HEADER),
  };
}

const contribution: SourceContribution = {
  kind: 'source',
  id: 'generic',
  description: 'Generic: X-Webhook-Signature (HMAC-SHA256 hex of the body), X-Request-ID, payload event_type',
  optionsSchema: { type: 'object', additionalProperties: false, properties: {} },
  create: () => createGenericSource(),
};

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [contribution] });
