// The Standard Webhooks signature scheme (standardwebhooks.com), used by Svix and every sender built on it and by
// GitLab's signing tokens: `webhook-signature: v1,<base64>` over `${webhook-id}.${webhook-timestamp}.${body}`.
import { headerValue, type HeaderMap, type SourceVerdict } from '@hookwise/core';
import { constantTimeEqual, hmacDigest, missingHeader, timestampProblem } from './signature';

export const STANDARD_WEBHOOKS_HEADERS = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' } as const;
/** The spec's recommended replay window. */
export const STANDARD_WEBHOOKS_TOLERANCE_SECONDS = 300;

const SECRET_PREFIX = 'whsec_';

/** The HMAC key of a secret: the base64 after `whsec_`, or the raw bytes of a secret written without the prefix. */
export function standardWebhooksKey(secret: string): Buffer {
  return secret.startsWith(SECRET_PREFIX) ? Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64') : Buffer.from(secret, 'utf8');
}

/** `v1,<base64>` for a message, as a sender computes it. */
export function standardWebhooksSignature(secret: string, id: string, timestamp: number | string, body: Buffer | string): string {
  const content = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), Buffer.isBuffer(body) ? body : Buffer.from(body)]);
  return `v1,${hmacDigest('sha256', standardWebhooksKey(secret), content, 'base64')}`;
}

/**
 * Verifies the three headers against each secret: the timestamp inside the window, then any of the
 * space-separated `v1,` signatures (a sender rotating its own secret sends several).
 */
export function verifyStandardWebhook(headers: HeaderMap, rawBody: Buffer, secrets: readonly string[], receivedAtMs: number, toleranceSeconds: number): SourceVerdict {
  const signatureHeader = headerValue(headers, STANDARD_WEBHOOKS_HEADERS.signature);
  if (signatureHeader === undefined) return missingHeader(STANDARD_WEBHOOKS_HEADERS.signature);
  const id = headerValue(headers, STANDARD_WEBHOOKS_HEADERS.id);
  const timestamp = headerValue(headers, STANDARD_WEBHOOKS_HEADERS.timestamp);
  if (id === undefined) return { ok: false, reason: `missing ${STANDARD_WEBHOOKS_HEADERS.id} header` };
  const stale = timestampProblem(timestamp, receivedAtMs, toleranceSeconds);
  if (stale) return { ok: false, reason: `${STANDARD_WEBHOOKS_HEADERS.timestamp}: ${stale}` };
  const offered = signatureHeader
    .split(' ')
    .filter((item) => item.startsWith('v1,'))
    .map((item) => item.slice(3));
  if (offered.length === 0) return { ok: false, reason: `${STANDARD_WEBHOOKS_HEADERS.signature} has no v1 signature` };
  let found = -1;
  secrets.forEach((secret, index) => {
    const expected = standardWebhooksSignature(secret, id, timestamp as string, rawBody).slice(3);
    const match = offered.map((sig) => constantTimeEqual(sig, expected)).includes(true);
    if (match && found === -1) found = index;
  });
  return found >= 0 ? { ok: true, secretIndex: found } : { ok: false, reason: 'no signature matches' };
}
