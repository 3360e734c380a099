// The checks a request passes before its body is verified: who the client is (for the failed-authentication
// throttle), whether that client is refused, and the size limit by Content-Length and after reading.
import { headerValue, type HeaderMap } from '@hookwise/core';
import type { AuthFailureThrottle } from './auth-throttle';
import type { TrustedProxies } from './client-address';
import { tooManyAuthFailures } from './answers';
import type { IngestRequest, IngestResult } from './pipeline-contract';

/** The client the throttle keys by: the peer, or behind a trusted proxy the X-Forwarded-For hop it names. */
export function clientOf(trustedProxies: TrustedProxies | undefined, req: Pick<IngestRequest, 'remoteAddress' | 'headers'>): string | undefined {
  if (req.remoteAddress === undefined) return undefined;
  return trustedProxies ? trustedProxies.clientOf(req.remoteAddress, req.headers) : req.remoteAddress.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
}

/** A client over `auth_failure_limit` is answered 429 before anything is read or verified; others pass (undefined). */
export function throttledClient(authThrottle: AuthFailureThrottle | undefined, client: string | undefined): IngestResult | undefined {
  const blockedFor = authThrottle?.blockedFor(client) ?? 0;
  return blockedFor > 0 ? tooManyAuthFailures(blockedFor) : undefined;
}

/** Content-Length over the limit: answered before a byte of the body is read. */
export function tooLargeByHeader(headers: HeaderMap, maxBodyBytes: number): boolean {
  const length = headerValue(headers, 'content-length');
  return length !== undefined && Number(length) > maxBodyBytes;
}
