// Polling for end-to-end tests: what a test waits for happens in another process or on a timer, so it is
// checked every 25 ms until it holds or the time is up.

export interface WaitForOptions {
  /** How long to wait before failing; 20 s unless given. */
  timeoutMs?: number;
  /** What the error adds when the time is up (a gateway's log, what a receiver got), to show why it never happened. */
  detail?: () => string;
}

/**
 * Resolves with the first value of `probe` that is neither `undefined` nor `false` (a check's `true`, or the
 * request, line or job it found); rejects, naming `what` and `detail()`, when that takes longer than `timeoutMs`.
 */
export async function waitFor<T>(what: string, probe: () => T | undefined | false, options: WaitForOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const end = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > end) {
      const detail = options.detail?.();
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail ? `\n${detail}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}
