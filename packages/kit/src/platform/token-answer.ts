// Reads an access token out of a platform's token answer (`{access_token, expires_in}`,
// `{tenant_access_token, expire}`, ...), for the `token` hook of platforms with app credentials.
import { HookwiseError } from '@hookwise/core';
import type { IssuedToken } from './cached-token';
import type { HttpResponse } from './http-exchange';

export function issuedTokenFrom(res: HttpResponse, fields: { token: string; expiresIn: string }, label: string): IssuedToken {
  const body = (res.json ?? {}) as Record<string, unknown>;
  const token = body[fields.token];
  if (typeof token !== 'string' || !token) {
    // An answer without the token is the platform misbehaving, not the credentials: worth another try.
    throw new HookwiseError('HW_E_DELIVERY', `${label}: the token answer has no ${fields.token}`, { retryable: true });
  }
  const expires = Number(body[fields.expiresIn]);
  return { token, expiresInSeconds: Number.isFinite(expires) && expires > 0 ? expires : undefined };
}
