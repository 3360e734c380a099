// The memory store's memos (plugins' memory across jobs, e.g. a sticky comment's id), gone with the process.
import type { MemoKV } from '@hookwise/core';

/** Most memos kept (the least recently written go first), so a long-running memory gateway stays bounded. */
export const MEMORY_MEMOS_KEPT = 100_000;

/** Memos in this process; also the gateway's fallback for a store without `memos`. */
export class MemoryMemoKV implements MemoKV {
  private readonly entries = new Map<string, { value: string; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async get(key: string): Promise<string | undefined> {
    return this.current(key);
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    this.write(key, value, ttlMs);
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  /** Atomic: the comparison and the write happen in one synchronous step, with no await between them. */
  async compareAndSet(key: string, expected: string | undefined, value: string, ttlMs?: number): Promise<boolean> {
    if (this.current(key) !== expected) return false;
    this.write(key, value, ttlMs);
    return true;
  }

  private current(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  private write(key: string, value: string, ttlMs: number | undefined): void {
    // Re-inserted so that the Map's order stays oldest-write first for the trim below.
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: ttlMs === undefined ? Infinity : this.now() + ttlMs });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= MEMORY_MEMOS_KEPT) break;
      this.entries.delete(oldest);
    }
  }
}
