// Names why the pipeline refused a request, from its answer: one bounded reason per kind of refusal, for the
// `rejected` lifecycle event (metric labels, the dashboard).
import { ERROR_CATALOGUE } from '@hookwise/core';
import type { RejectionReason } from '../observe/lifecycle';
import { CLIENT_ABORTED_MESSAGE } from './answers';
import type { IngestResult } from './pipeline-contract';

function errorText(result: IngestResult): string | undefined {
  return typeof result.body === 'object' && typeof result.body.error === 'string' ? result.body.error : undefined;
}

/** The reason of an answer of 400 or more; the catalogue's messages tell refusals with the same status apart. */
export function rejectionReason(result: IngestResult): RejectionReason {
  const error = errorText(result);
  switch (result.status) {
    case 404:
      return 'unknown_route';
    case 413:
      return 'payload_too_large';
    case 400:
      return error === CLIENT_ABORTED_MESSAGE ? 'client_aborted' : 'bad_body';
    case 401:
      return error === ERROR_CATALOGUE.HW_E_MISSING_SIGNATURE.message ? 'missing_signature' : 'invalid_signature';
    case 429:
      return error === ERROR_CATALOGUE.HW_E_RATE_LIMITED.message ? 'rate_limited' : 'auth_throttled';
    case 503:
      if (error === ERROR_CATALOGUE.HW_E_BACKPRESSURE.message) return 'backpressure';
      if (error === ERROR_CATALOGUE.HW_E_SHUTTING_DOWN.message) return 'shutting_down';
      return 'store_unavailable';
    default:
      return 'other';
  }
}
