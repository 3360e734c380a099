// The in-memory store (tests, demos, `npm start`): the built-in `memory` store plugin, one module per part like the
// SQLite and Redis stores.
import type { Store } from '@hookwise/core';
import { MemoryAcceptor } from './memory-accept';
import { MemoryWindowCounters } from './memory-counters';
import { MemoryDeliveryIdCache } from './memory-delivery-ids';
import { MemoryJobQueue } from './memory-job-queue';
import { MemoryMemoKV } from './memory-memos';
import { MemoryOutbox } from './memory-outbox';
import { MemoryProgressKV } from './memory-progress';
import { MemoryRateLimiter } from './memory-rate-limiter';

export * from './memory-delivery-ids';
export * from './memory-rate-limiter';
export * from './memory-job-queue';
export * from './memory-progress';
export * from './memory-memos';
export * from './memory-outbox';
export * from './memory-counters';
export * from './memory-accept';

export function createMemoryStore(): Store {
  const jobs = new MemoryJobQueue();
  const parts = { deliveryIds: new MemoryDeliveryIdCache(), rateLimiter: new MemoryRateLimiter(), jobs };
  const acceptor = new MemoryAcceptor(parts);
  return {
    ...parts,
    accept: (request) => acceptor.accept(request),
    progress: new MemoryProgressKV(),
    memos: new MemoryMemoKV(),
    outbox: new MemoryOutbox(),
    counters: new MemoryWindowCounters(),
    close: () => jobs.close(),
  };
}
