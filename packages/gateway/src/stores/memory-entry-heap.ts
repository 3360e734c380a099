// The binary heap the memory queue's waiting jobs are ordered by.
import type { Job } from '@hookwise/core';

/** A pending job's place in the waiting order: `seq` counts up each time a job starts (or starts again) to wait. */
export interface WaitingEntry {
  job: Job;
  seq: number;
  /** Where the entry sits in its heap's array, so that a job leaving the queue early is removed in O(log n). */
  slot: number;
}

/** A binary min-heap of waiting entries; `before(a, b)` is true when `a` must come out first. */
export class EntryHeap {
  private readonly entries: WaitingEntry[] = [];

  constructor(private readonly before: (a: WaitingEntry, b: WaitingEntry) => boolean) {}

  get size(): number {
    return this.entries.length;
  }

  peek(): WaitingEntry | undefined {
    return this.entries[0];
  }

  push(entry: WaitingEntry): void {
    this.place(entry, this.entries.length);
    this.siftUp(entry);
  }

  pop(): WaitingEntry | undefined {
    const top = this.entries[0];
    if (top) this.remove(top);
    return top;
  }

  /** Takes the entry out wherever it sits; false when it is not in this heap. */
  remove(entry: WaitingEntry): boolean {
    if (this.entries[entry.slot] !== entry) return false;
    const last = this.entries.pop() as WaitingEntry;
    if (last !== entry) {
      this.place(last, entry.slot);
      this.siftUp(last);
      this.siftDown(last);
    }
    return true;
  }

  private place(entry: WaitingEntry, slot: number): void {
    this.entries[slot] = entry;
    entry.slot = slot;
  }

  private siftUp(entry: WaitingEntry): void {
    while (entry.slot > 0) {
      const parent = this.entries[(entry.slot - 1) >> 1] as WaitingEntry;
      if (!this.before(entry, parent)) return;
      this.swap(entry, parent);
    }
  }

  private siftDown(entry: WaitingEntry): void {
    for (;;) {
      const child = this.firstChild(entry.slot);
      if (!child || !this.before(child, entry)) return;
      this.swap(entry, child);
    }
  }

  /** The child of `slot` that comes out first, if any. */
  private firstChild(slot: number): WaitingEntry | undefined {
    const left = this.entries[2 * slot + 1];
    const right = this.entries[2 * slot + 2];
    return left && right && this.before(right, left) ? right : left;
  }

  private swap(a: WaitingEntry, b: WaitingEntry): void {
    const slotOfA = a.slot;
    this.place(a, b.slot);
    this.place(b, slotOfA);
  }
}
