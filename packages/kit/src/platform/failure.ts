// How a platform's answer maps onto Hookwise errors. Plugins classify a response into a PlatformFailure
// (or let the HTTP status decide); the kit turns that into a HookwiseError with the same codes, retry
// flags and wording for every platform.
import { HookwiseError } from '@hookwise/core';
import type { HttpResponse } from './http-exchange';
import { retryAfterFromHeaders } from '../common/retry-after';

export type FailureKind =
  /** Credentials rejected: not retryable, the user must fix the config. */
  | 'auth'
  /** The chat/channel/number does not exist or the bot may not post there: not retryable. */
  | 'target'
  /** The request itself was refused (bad input, too long, unsupported): not retryable. */
  | 'rejected'
  /** Throttled: retryable, ideally after retryAfterSeconds. */
  | 'rate_limited'
  /** Server error or outage: retryable. */
  | 'unavailable'
  /** A cached access token expired: the kit refreshes it once and repeats the request. */
  | 'token_expired'
  /** The platform or the gateway's settings are wrong (a redirect, an unregistered sender): not retryable. */
  | 'config'
  /** A 2xx answer that is not the platform's documented success: not retried, the message may have gone out. */
  | 'unconfirmed';

export interface PlatformFailure {
  kind: FailureKind;
  /** What the platform said, without secrets (the kit scrubs again anyway). */
  message: string;
  retryAfterSeconds?: number;
}

/**
 * A response check's verdict that the platform already has this message: a retried request, carrying the same
 * idempotency key or temporary id as its first attempt, was answered "duplicate" because that first attempt did
 * reach the platform (e.g. it timed out on our side). Not a failure: the kit counts the part as sent and notes
 * it in the receipt.
 */
export interface AlreadyDelivered {
  kind: 'already_delivered';
  /** What the platform said (the kit scrubs it), kept in the receipt and the log. */
  message: string;
  /** The platform's id of the earlier message, when its answer names it. */
  messageId?: string;
}

/**
 * A response check's verdict that the message was sent, but some of the recipients it addressed did not get it
 * (WeCom's `invaliduser` with errcode 0, a Signal group member whose send failed). Counted as sent, never
 * repeated (the others have it); the failed recipients are listed in the receipt and logged as a warning.
 */
export interface PartialDelivery {
  kind: 'partial';
  /** What went wrong for the failed recipients (the kit scrubs it). */
  message: string;
  /** The recipients that did not get the message, as the platform names them. */
  failed: string[];
}

/** What a `checkResponse` hook may return besides undefined (accepted, or let the HTTP status decide). */
export type ResponseVerdict = PlatformFailure | AlreadyDelivered | PartialDelivery;

/** The platform's own words from common error body shapes, else the start of the body. */
export function errorDetail(res: HttpResponse): string {
  const body = res.json as Record<string, unknown> | undefined;
  if (body && typeof body === 'object') {
    for (const key of ['description', 'message', 'error_description', 'errmsg', 'error']) {
      const value = body[key];
      if (typeof value === 'string' && value) return value;
      if (value && typeof value === 'object' && typeof (value as { message?: unknown }).message === 'string') return (value as { message: string }).message;
    }
  }
  // Only the start is shown, so only the start is normalised (an error page can be megabytes).
  const text = res.text.slice(0, 1000).trim().replace(/\s+/g, ' ');
  return text.length > 200 ? `${text.slice(0, 200)}...` : text || '(empty body)';
}

/** Default mapping by HTTP status; undefined for 2xx. */
export function classifyHttpStatus(res: HttpResponse, detail: string = errorDetail(res)): PlatformFailure | undefined {
  const { status } = res;
  if (status >= 200 && status < 300) return undefined;
  const message = `HTTP ${status}: ${detail}`;
  if (status === 401 || status === 403) return { kind: 'auth', message };
  if (status === 429) return { kind: 'rate_limited', message, retryAfterSeconds: retryAfterFromHeaders(res.headers) };
  if (status === 408 || status >= 500) return { kind: 'unavailable', message, retryAfterSeconds: retryAfterFromHeaders(res.headers) };
  return { kind: 'rejected', message };
}

export interface FailureContext {
  /** e.g. "telegram (Telegram)". */
  label: string;
  /** What to do about rejected credentials, e.g. "check platforms.telegram.token". */
  credentialsHint: string;
  /** e.g. "POST https://api.telegram.org/bot[REDACTED]/sendMessage". */
  where: string;
}

export function failureToError(failure: PlatformFailure, ctx: FailureContext): HookwiseError {
  const base = `${ctx.label}: ${ctx.where} failed: ${failure.message}`;
  const retryAfterSeconds = failure.retryAfterSeconds;
  switch (failure.kind) {
    case 'auth':
    case 'token_expired':
      return new HookwiseError('HW_E_DELIVERY_AUTH', `${base}. The credentials were rejected: ${ctx.credentialsHint}`, { retryable: false });
    case 'target':
      return new HookwiseError('HW_E_DELIVERY_TARGET', `${base}. Check deliver_extra.chat_id / home_channel and that the bot may post there`, {
        retryable: false,
      });
    case 'rejected':
      return new HookwiseError('HW_E_DELIVERY', `${base}. The request was refused and will not be retried`, { retryable: false });
    case 'rate_limited':
      return new HookwiseError('HW_E_DELIVERY', `${base}. Rate limited${retryAfterSeconds !== undefined ? `; retry after ${retryAfterSeconds}s` : ''}`, {
        retryable: true,
        retryAfterSeconds,
      });
    case 'unavailable':
      return new HookwiseError('HW_E_DELIVERY', `${base}. The service is unavailable; will retry`, { retryable: true, retryAfterSeconds });
    case 'config':
      return new HookwiseError('HW_E_CONFIG', `${base}. This is a configuration problem and will not be retried`, { retryable: false });
    case 'unconfirmed':
      return new HookwiseError(
        'HW_E_DELIVERY',
        `${base}. The answer is not the platform's success answer (is api_base or the webhook URL pointing at the platform, not a proxy or another service?); not retried, as the message may have been posted`,
        { retryable: false },
      );
  }
}
