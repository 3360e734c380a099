// Waits that end early when the work they belong to is cancelled (a shutdown, a timed-out job).

/**
 * Resolves after `ms`, or rejects with `signal.reason` as soon as `signal` aborts (at once if it already
 * has), so that nothing waits out a backoff for work that was cancelled. Callers turn the reason into their
 * own error.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
