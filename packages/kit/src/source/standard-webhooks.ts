// The Standard Webhooks signature scheme (standardwebhooks.com), used by Svix and every sender built on it and by
// GitLab's signing tokens: `webhook-signature: v1,<base64>` over `${webhook-id}.${webhook-timestamp}.${body}`.
import { firstHeaderValue, type HeaderMap, type SourceVerdict } from '@hookwise/core';
import { MAX_SIGNATURE_ITEMS, anyConstantTimeEqual, hmacDigest, missingHeader, timestampProblem, verdictForSecrets } from './signature';

export const STANDARD_WEBHOOKS_HEADERS = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' } as const;
/** Svix sends the same scheme under its own names by default (Clerk, Resend, ...). */
export const SVIX_HEADERS = { id: 'svix-id', timestamp: 'svix-timestamp', signature: 'svix-signature' } as const;
/** The spec's recommended replay window, and the default of its reference libraries. */
export const STANDARD_WEBHOOKS_TOLERANCE_SECONDS = 300;

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * How a secret becomes the HMAC key. `auto`: `whsec_<base64>` is decoded; a secret without the prefix is tried
 * both decoded (a whsec_ secret pasted without its prefix, as the reference libraries read it) and as raw bytes
 * (senders reusing a legacy secret, as the spec allows). `base64`: always decoded. `raw`: the UTF-8 bytes as given.
 */
export type StandardWebhooksSecretEncoding = 'auto' | 'base64' | 'raw';

export interface StandardWebhooksVerifyOptions {
  toleranceSeconds?: number;
  encoding?: StandardWebhooksSecretEncoding;
  /** Also read the `svix-*` header names. */
  svixHeaders?: boolean;
}

function decodeBase64(encoded: string): Buffer | undefined {
  // Node's decoder skips characters it does not know; a mistyped secret must not quietly become another key.
  if (!BASE64.test(encoded)) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length > 0 ? key : undefined;
}

/** The HMAC keys a secret may stand for (none when it cannot be a key: bad base64 after whsec_, empty). */
export function standardWebhooksKeys(secret: string, encoding: StandardWebhooksSecretEncoding = 'auto'): Buffer[] {
  if (secret.length === 0) return [];
  const raw = Buffer.from(secret, 'utf8');
  if (encoding === 'raw') return [raw];
  const prefixed = secret.startsWith(SECRET_PREFIX);
  const decoded = decodeBase64(prefixed ? secret.slice(SECRET_PREFIX.length) : secret);
  if (encoding === 'base64' || prefixed) return decoded ? [decoded] : [];
  return decoded ? [decoded, raw] : [raw];
}

/** `v1,<base64>` for a message, as a sender computes it (first key of the secret). */
export function standardWebhooksSignature(secret: string, id: string, timestamp: number | string, body: Buffer | string): string {
  const [key] = standardWebhooksKeys(secret);
  return `v1,${hmacDigest('sha256', key ?? Buffer.alloc(0), signedContent(id, String(timestamp), body), 'base64')}`;
}

/** The `v1` signatures of a signature header (space-separated `<version>,<base64>`; other versions are skipped). */
export function v1Signatures(header: string): string[] {
  const signatures: string[] = [];
  for (const item of header.split(/\s+/, MAX_SIGNATURE_ITEMS)) {
    const comma = item.indexOf(',');
    if (comma > 0 && item.slice(0, comma) === 'v1' && comma < item.length - 1) signatures.push(item.slice(comma + 1));
  }
  return signatures;
}

function signedContent(id: string, timestamp: string, body: Buffer | string): Buffer {
  return Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), Buffer.isBuffer(body) ? body : Buffer.from(body)]);
}

/** The three headers, by the spec's names or (when asked) Svix's. */
export function standardWebhooksHeaders(headers: HeaderMap, svix = false): { id?: string; timestamp?: string; signature?: string } {
  const names = (key: keyof typeof STANDARD_WEBHOOKS_HEADERS) =>
    svix ? [STANDARD_WEBHOOKS_HEADERS[key], SVIX_HEADERS[key]] : [STANDARD_WEBHOOKS_HEADERS[key]];
  return {
    id: firstHeaderValue(headers, names('id'))?.trim(),
    timestamp: firstHeaderValue(headers, names('timestamp'))?.trim(),
    signature: firstHeaderValue(headers, names('signature')),
  };
}

/**
 * Verifies a request against each secret: any of the offered `v1` signatures of `id.timestamp.body` (a sender
 * rotating its own secret sends several), then the timestamp inside the replay window.
 */
export function verifyStandardWebhook(
  headers: HeaderMap,
  rawBody: Buffer,
  secrets: readonly string[],
  receivedAtMs: number,
  options: StandardWebhooksVerifyOptions = {},
): SourceVerdict {
  const { id, timestamp, signature } = standardWebhooksHeaders(headers, options.svixHeaders);
  const signatureName = options.svixHeaders ? `${STANDARD_WEBHOOKS_HEADERS.signature} (or ${SVIX_HEADERS.signature})` : STANDARD_WEBHOOKS_HEADERS.signature;
  if (signature === undefined) return missingHeader(signatureName);
  if (!id) return { ok: false, reason: `missing ${STANDARD_WEBHOOKS_HEADERS.id} header (it is part of the signed content)` };
  if (!timestamp) return { ok: false, reason: `missing ${STANDARD_WEBHOOKS_HEADERS.timestamp} header (it is part of the signed content)` };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: `${STANDARD_WEBHOOKS_HEADERS.timestamp} is not a number of seconds` };
  const offered = v1Signatures(signature);
  if (offered.length === 0) return { ok: false, reason: `${STANDARD_WEBHOOKS_HEADERS.signature} holds no v1 signature` };
  const content = signedContent(id, timestamp, rawBody);
  let unusable = 0;
  const verdict = verdictForSecrets(
    secrets,
    (secret) => {
      const keys = standardWebhooksKeys(secret, options.encoding);
      if (keys.length === 0) unusable += 1;
      let hit = false;
      for (const key of keys) if (anyConstantTimeEqual(offered, hmacDigest('sha256', key, content, 'base64'))) hit = true;
      return hit;
    },
    'no v1 signature matches',
  );
  if (!verdict.ok) {
    return unusable > 0
      ? { ok: false, reason: `${verdict.reason}; ${unusable} of the route's secrets is not a usable key (whsec_ must be followed by base64)` }
      : verdict;
  }
  const stale = timestampProblem(timestamp, receivedAtMs, options.toleranceSeconds ?? STANDARD_WEBHOOKS_TOLERANCE_SECONDS);
  return stale ? { ok: false, reason: stale } : verdict;
}
