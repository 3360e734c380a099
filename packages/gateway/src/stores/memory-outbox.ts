// The memory store's outbox (messages to other systems, e.g. `notify:` lifecycle webhooks), gone with the process;
// also the gateway's fallback for a store without `outbox`.
import type { Outbox, OutboxMessage } from '@hookwise/core';

interface Entry extends OutboxMessage {
  dueAt: number;
}

export class MemoryOutbox implements Outbox {
  /** Per target, in the order added (a Map keeps insertion order), so the oldest is first. */
  private readonly targets = new Map<string, Map<string, Entry>>();

  constructor(private readonly now: () => number = Date.now) {}

  async add(target: string, message: { id: string; body: string }, max: number): Promise<{ dropped: number }> {
    let entries = this.targets.get(target);
    if (!entries) this.targets.set(target, (entries = new Map()));
    entries.set(message.id, { id: message.id, body: message.body, attempts: 0, dueAt: this.now() });
    let dropped = 0;
    for (const oldest of entries.keys()) {
      if (entries.size <= Math.max(0, max)) break;
      entries.delete(oldest);
      dropped += 1;
    }
    return { dropped };
  }

  async due(target: string, limit: number, leaseMs: number): Promise<OutboxMessage[]> {
    const now = this.now();
    const claimed: OutboxMessage[] = [];
    for (const entry of this.targets.get(target)?.values() ?? []) {
      if (claimed.length >= limit) break;
      if (entry.dueAt > now) continue;
      entry.dueAt = now + leaseMs;
      claimed.push({ id: entry.id, body: entry.body, attempts: entry.attempts });
    }
    return claimed;
  }

  async done(target: string, id: string): Promise<void> {
    this.targets.get(target)?.delete(id);
  }

  async retryLater(target: string, id: string, at: number, attempts: number): Promise<void> {
    const entry = this.targets.get(target)?.get(id);
    if (!entry) return;
    entry.dueAt = at;
    entry.attempts = attempts;
  }
}
