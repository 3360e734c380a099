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

/** A call waiting for its answer: rejected once `at` passes unless it settled first. */
interface Waiting {
  at: number;
  reject: (err: Error) => void;
}

/**
 * The unsettled calls of one deadline length, in the order they started, so in the order their deadlines pass:
 * one timer for the oldest instead of a timer, a Promise.race and a finally per call (two store calls per
 * request). A settled call leaves the set at once, so nothing outlives its request.
 */
class DeadlineQueue {
  readonly waiting = new Set<Waiting>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number) {}

  add(entry: Waiting): void {
    this.waiting.add(entry);
    if (!this.timer) this.arm(entry.at);
  }

  /** Rejects the overdue calls, then waits for the next deadline. */
  private sweep(): void {
    this.timer = undefined;
    const now = Date.now();
    for (const entry of this.waiting) {
      if (entry.at > now) return this.arm(entry.at);
      this.waiting.delete(entry);
      entry.reject(new Error(`the store did not answer within ${this.ms} ms`));
    }
  }

  private arm(at: number): void {
    // Unreferenced: a waiting call belongs to a request whose socket keeps the process up; an idle queue must not.
    this.timer = setTimeout(() => this.sweep(), Math.max(0, at - Date.now()));
    this.timer.unref();
  }
}

const queues = new Map<number, DeadlineQueue>();

/** `call`, or a rejection when it has not settled `ms` after now; the call itself is left to finish. */
export function withinDeadline<T>(call: Promise<T>, ms: number): Promise<T> {
  let queue = queues.get(ms);
  if (!queue) queues.set(ms, (queue = new DeadlineQueue(ms)));
  const { waiting } = queue;
  const owner = queue;
  return new Promise<T>((resolve, reject) => {
    const entry: Waiting = { at: Date.now() + ms, reject };
    owner.add(entry);
    call.then(
      (value) => {
        waiting.delete(entry);
        resolve(value);
      },
      (err: unknown) => {
        waiting.delete(entry);
        reject(err);
      },
    );
  });
}

/** A store call failed: logged, and remembered for /health until a call works again; the answer is 503. */
export function storeFailed(deps: Pick<PipelineDeps, 'storeStatus' | 'logger'>, route: Route, err: unknown): IngestResult {
  const message = errorMessage(err);
  deps.storeStatus?.failed('accept', message);
  deps.logger.error(`could not store an event on route '${route.name}' (answered 503, the sender retries): ${message}`, { route: route.name });
  return storeUnavailable();
}
