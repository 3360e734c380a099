// Request headers as the dashboard may keep and show them: signature, token and credential headers reduced to a
// placeholder before anything is stored, everything else bounded in count and length.
import type { HeaderMap } from '@hookwise/core';

/** Names that carry signatures or credentials in some sender's style (X-Hub-Signature-256, X-Gitlab-Token, Stripe-Signature, X-Shopify-Hmac-Sha256, Authorization, ...). */
const SECRET_HEADER = /sign|hmac|token|secret|auth|key|cookie|passw|credential|session/i;
export const REDACTED = '[redacted]';
const MAX_HEADERS = 64;
const MAX_VALUE_CHARS = 512;

/**
 * `[name, value]` pairs, names lower-case and sorted. A secret-looking header keeps its name and loses its value;
 * so does any value `isSecret` knows (a route secret sent as a plain header value).
 */
export function redactHeaders(headers: HeaderMap, isSecret: (value: string) => boolean = () => false): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [rawName, rawValue] of Object.entries(headers)) {
    if (rawValue === undefined) continue;
    const name = rawName.toLowerCase();
    const value = Array.isArray(rawValue) ? rawValue.join(', ') : String(rawValue);
    const secret = SECRET_HEADER.test(name) || isSecret(value) || (Array.isArray(rawValue) && rawValue.some((v) => isSecret(v)));
    out.push([name, secret ? REDACTED : value.length > MAX_VALUE_CHARS ? `${value.slice(0, MAX_VALUE_CHARS)}…` : value]);
  }
  out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return out.slice(0, MAX_HEADERS);
}
