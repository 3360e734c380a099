// Signature primitives shared by verifier plugins: HMAC-SHA256 hex digests and constant-time comparison.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { HeaderMap, VerifyResult } from '@hookwise/core';
import { headerValue } from '@hookwise/core';

export function hmacSha256Hex(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** Constant-time equality of two strings; different lengths and non-ASCII input are simply unequal. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) return false;
  return timingSafeEqual(left, right);
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * Checks `header` against the hex HMAC-SHA256 of the body, after an optional prefix such as `sha256=`.
 * Malformed values are a clean failure with a reason, never an exception.
 */
export function verifyHexHmacHeader(headers: HeaderMap, header: string, rawBody: Buffer, secret: string, prefix = ''): VerifyResult {
  const value = headerValue(headers, header);
  if (value === undefined) return { ok: false, reason: `missing ${header} header` };
  const trimmed = value.trim();
  if (prefix && !trimmed.toLowerCase().startsWith(prefix)) return { ok: false, reason: `${header} does not start with '${prefix}'` };
  const digest = trimmed.slice(prefix.length);
  if (!HEX_SHA256.test(digest)) return { ok: false, reason: `${header} is not a 64-digit hex digest` };
  const expected = hmacSha256Hex(secret, rawBody);
  return constantTimeEqual(digest.toLowerCase(), expected) ? { ok: true } : { ok: false, reason: 'digest does not match' };
}
