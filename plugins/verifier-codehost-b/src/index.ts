// Code host B: `X-CodeHostB-Token` carries the secret itself (not an HMAC); compared in constant time.
import { constantTimeEqual } from '@hookwise/kit';
import { definePlugin, headerValue, type PluginPackageJson, type Verifier } from '@hookwise/core';

export const HEADER = 'x-codehostb-token';

export function createCodehostBVerifier(): Verifier {
  return {
    headers: [HEADER],
    verify(req, secret) {
      const token = headerValue(req.headers, HEADER);
      if (token === undefined) return { ok: false, reason: `missing ${HEADER} header` };
      return constantTimeEqual(token, secret) ? { ok: true } : { ok: false, reason: 'token does not match' };
    },
  };
}

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [{ kind: 'verifier', id: 'codehost_b', description: 'X-CodeHostB-Token (plain secret)', create: createCodehostBVerifier }],
});
