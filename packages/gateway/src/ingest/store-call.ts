// Store calls on the request path: how long one may take, and what a failed one does (logged, remembered for
// /health, answered 503 so that the sender retries).
import { errorMessage } from '@hookwise/core';
import { storeUnavailable } from './answers';
import type { IngestResult, PipelineDeps } from './pipeline-contract';
import type { Route } from '../routes/routes';

/**
 * How long the request path waits for one store call. A store that does not answer (Redis unreachable: its
 * commands wait for the reconnect) must not hold the sender's connection until the sender gives up; the call
 * may still complete later, and the sender's retry then finds the event stored and is answered duplicate.
 */
export const STORE_CALL_TIMEOUT_MS = 5000;

export function withinDeadline<T>(call: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([call, late]).finally(() => clearTimeout(timer));
}

/** A store call failed: logged, and remembered for /health until a call works again; the answer is 503. */
export function storeFailed(deps: Pick<PipelineDeps, 'storeStatus' | 'logger'>, route: Route, err: unknown): IngestResult {
  const message = errorMessage(err);
  deps.storeStatus?.failed('accept', message);
  deps.logger.error(`could not store an event on route '${route.name}' (answered 503, the sender retries): ${message}`, { route: route.name });
  return storeUnavailable();
}
