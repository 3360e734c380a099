// The memory store's fixed-window rate limiter, one window per route.
import { RATE_WINDOW_MS, type RateLimiter, type RateWindow } from '@hookwise/core';

export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly windowMs = RATE_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  private window(route: string): { start: number; count: number } {
    const now = this.now();
    const start = now - (now % this.windowMs);
    let w = this.windows.get(route);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(route, w);
    }
    return w;
  }

  private answer(w: { start: number; count: number }, limit: number): RateWindow {
    return { allowed: w.count < limit, retryAfterSeconds: Math.max(1, Math.ceil((w.start + this.windowMs - this.now()) / 1000)) };
  }

  async check(route: string, limit: number): Promise<RateWindow> {
    return this.checkNow(route, limit);
  }

  async hit(route: string, limit: number): Promise<RateWindow> {
    return this.hitNow(route, limit);
  }

  /** `check` without a promise, for the memory store's own accept. */
  checkNow(route: string, limit: number): RateWindow {
    return this.answer(this.window(route), limit);
  }

  /** `hit` without a promise, for the memory store's own accept. */
  hitNow(route: string, limit: number): RateWindow {
    const w = this.window(route);
    const result = this.answer(w, limit);
    if (result.allowed) w.count += 1;
    return result;
  }
}
