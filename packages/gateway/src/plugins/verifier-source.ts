// An API 1 verifier plugin used where the gateway expects an API 2 source.
import type { Source, Verifier } from '@hookwise/core';

/** An API 1 verifier seen as a source: it checks each secret in turn and reads nothing else. */
export function sourceFromVerifier(verifier: Verifier): Source {
  return {
    headers: verifier.headers.map((h) => h.toLowerCase()),
    verify(req, secrets) {
      let last = 'no secret';
      for (const [index, secret] of secrets.entries()) {
        const result = verifier.verify({ headers: req.headers, rawBody: req.rawBody }, secret);
        if (result.ok) return { ok: true, secretIndex: index };
        last = result.reason;
      }
      return { ok: false, reason: last };
    },
  };
}
