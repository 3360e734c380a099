// Request headers as the dashboard may keep and show them: signature, token and credential headers reduced to a
// placeholder before anything is stored, values that hold a known secret hidden when shown, all bounded.
import { REDACTED, type HeaderMap } from '@hookwise/core';

/** Names that carry signatures or credentials in some sender's style (X-Hub-Signature-256, X-Gitlab-Token, Stripe-Signature, X-Shopify-Hmac-Sha256, Authorization, ...). */
const SECRET_HEADER = /sign|hmac|token|secret|auth|key|cookie|passw|credential|session/i;
// The same marker as logs and errors (core's one redactor); re-exported for the hosts that show headers.
export { REDACTED };
const MAX_HEADERS = 64;
const MAX_VALUE_CHARS = 512;

/** Senders use a few dozen header names: the verdict per name is remembered (bounded, names are sender-chosen). */
const verdicts = new Map<string, boolean>();
function secretName(name: string): boolean {
  let secret = verdicts.get(name);
  if (secret === undefined) {
    secret = SECRET_HEADER.test(name);
    if (verdicts.size < 512) verdicts.set(name, secret);
  }
  return secret;
}

/**
 * What may be kept of a request's headers, at receipt (cheap: it runs on every accepted request while the
 * dashboard is on): names lower-case, a secret-looking header's value replaced by the placeholder, values cut.
 */
export function keepableHeaders(headers: HeaderMap): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const rawName in headers) {
    const rawValue = headers[rawName];
    if (rawValue === undefined) continue;
    const name = rawName.toLowerCase();
    if (secretName(name)) {
      out.push([name, REDACTED]);
    } else {
      const value = typeof rawValue === 'string' ? rawValue : rawValue.join(', ');
      out.push([name, value.length > MAX_VALUE_CHARS ? `${value.slice(0, MAX_VALUE_CHARS)}…` : value]);
    }
    if (out.length === MAX_HEADERS) break;
  }
  return out;
}

/** Kept headers as shown: a value holding a known secret (a route secret sent as a plain header) hidden too; sorted by name. */
export function shownHeaders(kept: ReadonlyArray<[string, string]>, isSecret: (value: string) => boolean = () => false): Array<[string, string]> {
  return kept
    .map(([name, value]): [string, string] => [name, value !== REDACTED && isSecret(value) ? REDACTED : value])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** Both steps at once. */
export function redactHeaders(headers: HeaderMap, isSecret?: (value: string) => boolean): Array<[string, string]> {
  return shownHeaders(keepableHeaders(headers), isSecret);
}
