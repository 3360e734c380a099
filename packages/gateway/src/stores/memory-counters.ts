// The memory store's budget counters: fixed windows in this process (gone with it, like the rest of the store).
import { type WindowCounters } from '@hookwise/core';

/**
 * One running total per (key, window length): the window starts at a multiple of its length since the epoch, and
 * the total of a window that has ended is dropped when the key is next used, so memory stays one entry per key.
 */
export class MemoryWindowCounters implements WindowCounters {
  private readonly windows = new Map<string, { start: number; total: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async add(key: string, amount: number, windowMs: number): Promise<number> {
    const now = this.now();
    const start = now - (now % windowMs);
    // The length is part of the name: the same key counted per hour and per day are two counters.
    const name = `${windowMs}\u0000${key}`;
    const window = this.windows.get(name);
    if (window && window.start === start) {
      window.total += amount;
      return window.total;
    }
    if (amount === 0) {
      // A peek at a window nothing was added to yet: nothing to remember.
      if (window) this.windows.delete(name);
      return 0;
    }
    this.windows.set(name, { start, total: amount });
    return amount;
  }

  /** How many counters are remembered (for tests of the bound). */
  get size(): number {
    return this.windows.size;
  }
}
