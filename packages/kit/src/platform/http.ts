// One HTTP exchange with a platform API on global fetch: JSON/form/text bodies, Basic/Bearer auth, a
// per-request timeout combined with the caller's AbortSignal, network failures turned into retryable
// HookwiseErrors whose messages never carry a secret, and redirects never followed.
import { HookwiseError, type SecretScrubber } from '@hookwise/core';
import type { PlatformFailure } from './failure';
import type { HttpRequest, HttpResponse } from './http-exchange';

export interface HttpSendOptions {
  signal: AbortSignal;
  timeoutMs: number;
  scrubber: SecretScrubber;
  /** Prefix for error messages, e.g. "telegram (Telegram)". */
  label: string;
  /**
   * What a 3xx answer does: 'fail' (default) throws a non-retryable configuration error naming the Location;
   * 'return' hands it back to the caller, which must not treat it as a success (see `redirectFailure`).
   */
  redirects?: 'fail' | 'return';
}

/** Whether an answer is a redirect; fetch runs with `redirect: 'manual'`, so these reach the caller. */
export function isRedirect(res: Pick<HttpResponse, 'status'>): boolean {
  return res.status >= 300 && res.status < 400;
}

/**
 * Why a redirect is refused. Following one is never safe for a platform call: a 301/302/303 turns the POST
 * into a GET that any server answers 2xx (a message "delivered" nowhere), and a 307/308 to another origin
 * replays the message and its credentials there. Where it points is named (scrubbed, without its query
 * string) so that the user can put the final address into api_base or the webhook URL.
 */
export function redirectFailure(res: Pick<HttpResponse, 'status' | 'headers'>, req: Pick<HttpRequest, 'url'>, scrubber: SecretScrubber): PlatformFailure {
  const location = res.headers.get('location');
  let shown = 'no Location header';
  if (location) {
    try {
      const target = new URL(location, req.url);
      shown = `Location ${target.origin}${target.pathname}${target.search ? '?...' : ''}`;
    } catch {
      shown = `Location ${JSON.stringify(location.slice(0, 200))}`;
    }
  }
  return {
    kind: 'config',
    message: scrubber.scrub(
      `HTTP ${res.status} redirect (${shown}). Redirects are not followed (they can turn the POST into a GET or send the message elsewhere): set api_base or the webhook URL to the address the platform really answers at`,
    ),
  };
}

/** "POST https://host/path" with secrets scrubbed and the query string left out (it may carry keys). */
export function describeRequest(req: Pick<HttpRequest, 'method' | 'url'>, scrubber: SecretScrubber): string {
  let shown = req.url;
  try {
    const url = new URL(req.url);
    shown = `${url.origin}${url.pathname}`;
  } catch {
    // not a URL: show what we have, scrubbed
  }
  return `${req.method ?? 'GET'} ${scrubber.scrub(shown)}`;
}

function encodeBody(req: HttpRequest, headers: Record<string, string>): string | undefined {
  if (req.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    return JSON.stringify(req.json);
  }
  if (req.form !== undefined) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(req.form)) if (value !== undefined) params.append(key, String(value));
    return params.toString();
  }
  return req.body;
}

function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

export async function sendHttp(req: HttpRequest, opts: HttpSendOptions): Promise<HttpResponse> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'hookwise', ...lowerCaseKeys(req.headers) };
  if (req.basicAuth) headers.authorization = `Basic ${Buffer.from(`${req.basicAuth.username}:${req.basicAuth.password}`).toString('base64')}`;
  if (req.bearer) headers.authorization = `Bearer ${req.bearer}`;
  const body = encodeBody(req, headers);
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = AbortSignal.any([opts.signal, timeout]);
  const where = describeRequest(req, opts.scrubber);
  let answer: HttpResponse;
  try {
    const res = await fetch(req.url, { method: req.method ?? (body === undefined ? 'GET' : 'POST'), headers, body, signal, redirect: 'manual' });
    const text = await res.text();
    let json: unknown;
    if ((text && /json/i.test(res.headers.get('content-type') ?? '')) || /^\s*[{[]/.test(text)) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    answer = { status: res.status, headers: res.headers, text, json };
  } catch (err) {
    if (opts.signal.aborted) {
      throw new HookwiseError('HW_E_DELIVERY', `${opts.label}: ${where} was cancelled (gateway shutting down)`, { retryable: true });
    }
    if (timeout.aborted) {
      throw new HookwiseError(
        'HW_E_DELIVERY',
        `${opts.label}: ${where} timed out after ${opts.timeoutMs / 1000}s; the service may be slow or unreachable (raise timeout_seconds if it is just slow)`,
        { retryable: true },
      );
    }
    throw new HookwiseError(
      'HW_E_DELIVERY',
      opts.scrubber.scrub(`${opts.label}: could not reach ${where} (${networkReason(err)}); check api_base and the network`),
      { retryable: true },
    );
  }
  if (isRedirect(answer) && opts.redirects !== 'return') {
    throw new HookwiseError('HW_E_CONFIG', `${opts.label}: ${where} failed: ${redirectFailure(answer, req, opts.scrubber).message}`, { retryable: false });
  }
  return answer;
}

function lowerCaseKeys(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) out[k.toLowerCase()] = v;
  return out;
}

/** Joins an api_base (with or without a trailing slash) and a path, and sets query parameters (URL-encoded). */
export function joinUrl(base: string, path: string, query?: Record<string, string>): string {
  const joined = `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  if (!query) return joined;
  const url = new URL(joined);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  return url.toString();
}
