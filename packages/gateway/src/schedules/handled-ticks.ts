// Per route, the time up to which its ticks are handled (run, or skipped by `catch_up: none`), kept in the store's
// memos: durable on SQLite and Redis and shared by the gateways on one store, so a start knows what was missed.
import type { MemoKV } from '@hookwise/core';

const KEY_PREFIX = 'schedules:handled:';

export class HandledTicks {
  constructor(private readonly memos: MemoKV) {}

  /** Epoch ms, or undefined when no gateway ever ran this route's schedule on this store. */
  async get(route: string): Promise<number | undefined> {
    const text = await this.memos.get(KEY_PREFIX + route);
    const ms = text === undefined ? NaN : Date.parse(text);
    return Number.isFinite(ms) ? ms : undefined;
  }

  /** Moves the mark forward to `ms`; never back (another gateway may have handled a later tick meanwhile). */
  async advance(route: string, ms: number): Promise<void> {
    const known = await this.get(route);
    if (known !== undefined && known >= ms) return;
    await this.memos.set(KEY_PREFIX + route, new Date(ms).toISOString());
  }
}
