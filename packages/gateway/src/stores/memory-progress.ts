// The memory store's delivery progress (parts sent, idempotency keys), gone with the process.
import { type ProgressKV } from '@hookwise/core';

/** Most progress entries kept (the oldest go first); an entry is one delivery to one destination in progress. */
export const MEMORY_PROGRESS_KEPT = 10_000;

/** Delivery progress in this process (gone with it, like the rest of the memory store). */
export class MemoryProgressKV implements ProgressKV {
  private readonly entries = new Map<string, { value: unknown; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async get(key: string): Promise<unknown | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return structuredClone(entry.value);
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    // Re-inserted so that the Map's order stays oldest-write first for the trim below.
    this.entries.delete(key);
    this.entries.set(key, { value: structuredClone(value), expiresAt: this.now() + ttlMs });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= MEMORY_PROGRESS_KEPT) break;
      this.entries.delete(oldest);
    }
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }
}
