// Spaces the parts of long answers at a platform's documented per-chat rate (e.g. one message per second in a
// Telegram chat), shared by every delivery of one deliverer so that two answers to the same chat do not add
// up to a burst. Time comes from an injectable clock: tests run it virtually, shutdown aborts a wait.
import { sleep } from '../common/sleep';

/** Where pacing gets the time and how it waits; tests pass a virtual one. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, rejects as soon as `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now(), sleep: (ms, signal) => sleep(ms, signal) };

/** Chats remembered at most; entries whose slot has passed are dropped first. */
const MAX_KEYS = 10_000;

export class Pacer {
  /** Per chat: the earliest time the next message may go. */
  private readonly next = new Map<string, number>();

  constructor(private readonly clock: Clock = systemClock) {}

  /**
   * Books the next slot for `key` at least `intervalMs` after the previous one and waits for it (0 ms when
   * the chat has been quiet). A booked slot stays booked when the wait is aborted: being too slow once is
   * harmless, a burst is not. Returns how long it waited.
   */
  async wait(key: string, intervalMs: number, signal: AbortSignal): Promise<number> {
    if (intervalMs <= 0) return 0;
    const now = this.clock.now();
    const at = Math.max(now, this.next.get(key) ?? now);
    this.next.delete(key); // re-inserted last: the map's order is then oldest booking first
    this.next.set(key, at + intervalMs);
    if (this.next.size > MAX_KEYS) this.prune(now);
    if (at > now) await this.clock.sleep(at - now, signal);
    return at - now;
  }

  private prune(now: number): void {
    for (const [key, at] of this.next) {
      if (this.next.size <= MAX_KEYS / 2) break;
      if (at <= now || this.next.size > MAX_KEYS) this.next.delete(key);
    }
  }
}

/**
 * A clock for tests: a sleep is recorded and moves the time forward to its end as soon as it is awaited (not
 * before: sleeps started together end together, as they would on a real clock), so that paced deliveries
 * run instantly and a test can read how long they would have waited.
 */
export class VirtualClock implements Clock {
  /** Every wait, in milliseconds, in order. */
  readonly waits: number[] = [];

  constructor(private time = 0) {}

  now(): number {
    return this.time;
  }

  async sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw signal.reason;
    this.waits.push(ms);
    const end = this.time + ms;
    await Promise.resolve();
    this.time = Math.max(this.time, end);
  }
}
