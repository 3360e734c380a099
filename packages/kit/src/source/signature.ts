// Signature primitives for source plugins: HMAC digests, constant-time comparison, trying each of a route's
// secrets (rotation), signature lists in one header (`t=..,v1=..`) and replay windows for timestamped styles.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { headerValue, type HeaderMap, type SourceVerdict } from '@hookwise/core';

export type HmacAlgorithm = 'sha1' | 'sha256' | 'sha512';

export function hmacDigest(algorithm: HmacAlgorithm, secret: string | Buffer, data: Buffer | string, encoding: 'hex' | 'base64'): string {
  return createHmac(algorithm, secret).update(data).digest(encoding);
}

export function hmacSha256Hex(secret: string | Buffer, body: Buffer | string): string {
  return hmacDigest('sha256', secret, body, 'hex');
}

/**
 * Constant-time equality of two strings, also in their lengths: both sides are hashed first, so neither the
 * position of the first difference nor the length of the expected value shows in the time taken.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(left, right) && a === b;
}

/**
 * Checks every secret (the time taken does not depend on which one matched) and returns the position of the
 * first that matches, or -1. `matches` must itself compare in constant time.
 */
export function matchingSecretIndex(secrets: readonly string[], matches: (secret: string) => boolean): number {
  let found = -1;
  secrets.forEach((secret, index) => {
    // An empty key is one anyone can sign with: it never matches, whatever the config says.
    if (secret !== '' && matches(secret) && found === -1) found = index;
  });
  return found;
}

/** Whether any of the offered signatures equals `expected`; every one is compared, so timing shows none of them. */
export function anyConstantTimeEqual(offered: readonly string[], expected: string): boolean {
  let match = false;
  for (const candidate of offered) if (constantTimeEqual(candidate, expected)) match = true;
  return match;
}

/** A verdict from `matchingSecretIndex`: ok with the matching position, else `reason`. */
export function verdictForSecrets(secrets: readonly string[], matches: (secret: string) => boolean, reason = 'digest does not match'): SourceVerdict {
  const index = matchingSecretIndex(secrets, matches);
  return index >= 0 ? { ok: true, secretIndex: index } : { ok: false, reason };
}

/** A source verdict for a request without this style's signature header. */
export function missingHeader(header: string): SourceVerdict {
  return { ok: false, reason: `missing ${header} header`, missing: true };
}

/**
 * Splits a header holding several `key=value` items (`t=1492774577,v1=5257a8...,v1=...` or `ts=1671552777;h1=...`)
 * into pairs, in order; items without `=` are left out. Repeated keys (several signatures) are all kept.
 */
export function parseSignatureList(value: string, separator: ',' | ';' | ' ' = ','): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  // A 64 KiB header could hold thousands of signatures, each an HMAC to compare: read a sender's worth only.
  for (const item of value.split(separator, MAX_SIGNATURE_ITEMS)) {
    const at = item.indexOf('=');
    if (at <= 0) continue;
    pairs.push([item.slice(0, at).trim(), item.slice(at + 1).trim()]);
  }
  return pairs;
}

/** How many items of a signature list are read; senders send a handful (one per secret they rotate). */
export const MAX_SIGNATURE_ITEMS = 32;

/** The values of `key` in a parsed signature list (`v1` may appear several times). */
export function signatureValues(pairs: ReadonlyArray<[string, string]>, key: string): string[] {
  return pairs.filter(([k]) => k === key).map(([, v]) => v);
}

/**
 * Why a sender's timestamp is outside the replay window, or undefined when it is inside. `timestamp` is in
 * seconds (or `unit` milliseconds) since the epoch as the sender wrote it; a value that is not a number is refused.
 */
export function timestampProblem(
  timestamp: string | number | undefined,
  receivedAtMs: number,
  toleranceSeconds: number,
  unit: 'seconds' | 'milliseconds' = 'seconds',
): string | undefined {
  if (timestamp === undefined || timestamp === '') return 'no timestamp';
  const raw = typeof timestamp === 'number' ? timestamp : /^\d{1,15}$/.test(timestamp.trim()) ? Number(timestamp.trim()) : Number.NaN;
  const seconds = unit === 'milliseconds' ? raw / 1000 : raw;
  if (!Number.isFinite(seconds)) return 'the timestamp is not a number of seconds';
  const skew = Math.round(receivedAtMs / 1000 - seconds);
  if (skew > toleranceSeconds) return `the timestamp is ${skew} s old (tolerance ${toleranceSeconds} s): a replayed or delayed request`;
  if (-skew > toleranceSeconds) return `the timestamp is ${-skew} s in the future (tolerance ${toleranceSeconds} s): check the sender's clock`;
  return undefined;
}

/** The JSON Schema of the `tolerance_seconds` option every timestamped source offers, with the sender's default. */
export function toleranceOption(defaultSeconds: number): Record<string, unknown> {
  return {
    type: 'integer',
    minimum: 1,
    default: defaultSeconds,
    description: `Replay window: requests whose signed timestamp is further than this from now are refused (default ${defaultSeconds} s, the sender's documented value).`,
  };
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * Checks `header` against the hex HMAC-SHA256 of the body, after an optional prefix such as `sha256=`, with any of
 * `secrets`. Malformed values are a clean failure with a reason, never an exception.
 */
export function verifyHexHmac(headers: HeaderMap, header: string, rawBody: Buffer, secrets: readonly string[], prefix = ''): SourceVerdict {
  const value = headerValue(headers, header);
  if (value === undefined) return missingHeader(header);
  const trimmed = value.trim();
  if (prefix && !trimmed.toLowerCase().startsWith(prefix)) return { ok: false, reason: `${header} does not start with '${prefix}'` };
  const digest = trimmed.slice(prefix.length);
  if (!HEX_SHA256.test(digest)) return { ok: false, reason: `${header} is not a 64-digit hex digest` };
  // Both sides are 32 bytes whatever was sent (the pattern above fixes the length), so comparing the raw digests
  // with timingSafeEqual shows nothing through timing; hashing them first (constantTimeEqual) is for strings
  // whose lengths differ, and cost about half of this check.
  const offered = Buffer.from(digest, 'hex');
  return verdictForSecrets(secrets, (secret) => timingSafeEqual(offered, createHmac('sha256', secret).update(rawBody).digest()));
}
