// Code host A: `X-CodeHostA-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`.
import { definePlugin, type PluginPackageJson, type Verifier } from '@hookwise/core';
import { verifyHexHmacHeader } from '@hookwise/kit';

export const HEADER = 'x-codehosta-signature-256';

export function createCodehostAVerifier(): Verifier {
  return {
    headers: [HEADER],
    verify: (req, secret) => verifyHexHmacHeader(req.headers, HEADER, req.rawBody, secret, 'sha256='),
  };
}

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [{ kind: 'verifier', id: 'codehost_a', description: 'X-CodeHostA-Signature-256 (sha256=HMAC-SHA256 hex)', create: createCodehostAVerifier }],
});
