// A log line that any client can cause as often as it likes (hanging up mid-body costs it nothing) must not fill
// the log: the first one in a window is written, the rest are only counted, and the next written line says how
// many were left out.

/** Writes at most one line per window; the count of lines left out rides on the next one written. */
export class LogThrottle {
  private windowStart = -Infinity;
  private suppressed = 0;

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The number of lines left out since the last written one, when this line is to be written; undefined to leave it out. */
  take(): number | undefined {
    const now = this.now();
    if (now - this.windowStart < this.windowMs) {
      this.suppressed++;
      return undefined;
    }
    this.windowStart = now;
    const left = this.suppressed;
    this.suppressed = 0;
    return left;
  }
}

/** One throttle per key object (a gateway's logger), so that two gateways in one process do not share a window. */
export function throttleFor<K extends object>(throttles: WeakMap<K, LogThrottle>, key: K, windowMs: number): LogThrottle {
  let throttle = throttles.get(key);
  if (!throttle) throttles.set(key, (throttle = new LogThrottle(windowMs)));
  return throttle;
}
