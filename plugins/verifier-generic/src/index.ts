// Generic senders: `X-Webhook-Signature: <hex HMAC-SHA256 of the raw body>`.
import { definePlugin, type PluginPackageJson, type Verifier } from '@hookwise/core';
import { verifyHexHmacHeader } from '@hookwise/kit';

export const HEADER = 'x-webhook-signature';

export function createGenericVerifier(): Verifier {
  return {
    headers: [HEADER],
    verify: (req, secret) => verifyHexHmacHeader(req.headers, HEADER, req.rawBody, secret),
  };
}

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [{ kind: 'verifier', id: 'generic', description: 'X-Webhook-Signature (HMAC-SHA256 hex)', create: createGenericVerifier }],
});
