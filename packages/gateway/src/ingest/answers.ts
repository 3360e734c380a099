// The pipeline's fixed answers: the error catalogue's status and message, and the refusals that tell the sender
// when to retry. Each call builds a new result, so that no caller can change another request's answer.
import { ERROR_CATALOGUE, type ErrorCode } from '@hookwise/core';
import type { IngestResult } from './pipeline-contract';

/** The catalogue's answer to `code`, with its message unless `message` says more. */
export function fail(code: ErrorCode, message?: string, headers?: Record<string, string>): IngestResult {
  return { status: ERROR_CATALOGUE[code].status ?? 500, body: { error: message ?? ERROR_CATALOGUE[code].message }, headers };
}

export const rateLimited = (retryAfterSeconds: number): IngestResult => fail('HW_E_RATE_LIMITED', undefined, { 'Retry-After': String(retryAfterSeconds) });

export const shuttingDown = (): IngestResult => fail('HW_E_SHUTTING_DOWN', undefined, { 'Retry-After': '5' });

/** A client over `auth_failure_limit`, for `retryAfterSeconds` more. */
export const tooManyAuthFailures = (retryAfterSeconds: number): IngestResult => ({
  status: 429,
  body: { error: 'Too many failed authentications, retry later' },
  headers: { 'Retry-After': String(retryAfterSeconds) },
});

/**
 * The store failed (another process holds the SQLite lock, Redis is unreachable): nothing was stored, and the
 * sender should retry, so 503 with Retry-After, never 500. docs/security.md lists the 5xx answers.
 */
export const storeUnavailable = (): IngestResult => ({ status: 503, body: { error: 'Store unavailable, retry later' }, headers: { 'Retry-After': '5' } });

/** The client hung up mid-body. Nobody reads this answer; its status and message name the refusal for the access log and `rejected`. */
export const CLIENT_ABORTED_MESSAGE = 'The client closed the connection before the body was complete';
export const clientAborted = (): IngestResult => ({ status: 400, body: { error: CLIENT_ABORTED_MESSAGE } });
