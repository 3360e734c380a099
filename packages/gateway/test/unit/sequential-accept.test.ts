// SequentialAcceptor (stores without their own accept) over the memory store's parts: an event that the queue
// merged into a waiting coalescing job is answered `coalesced`, and makes no pending job for backpressure.
import type { JobInput, Store } from '@hookwise/core';
import { SequentialAcceptor } from '../../src/stores/accept';
import { MemoryDeliveryIdCache, MemoryJobQueue, MemoryRateLimiter } from '../../src/stores/memory';

function storeWithoutAccept(): Store {
  const jobs = new MemoryJobQueue();
  return { deliveryIds: new MemoryDeliveryIdCache(), rateLimiter: new MemoryRateLimiter(), jobs, close: () => jobs.close() };
}

const job = (deliveryId: string, key: string): JobInput => ({
  route: 'prs',
  event: 'pull_request',
  deliveryId,
  payload: { action: 'synchronize' },
  receivedAt: Date.now(),
  coalesce: { key, windowMs: 60_000, mode: 'latest' },
});

describe('SequentialAcceptor and coalescing', () => {
  let store: Store;
  afterEach(() => store.close());

  it('says coalesced for the events merged into the first one, not for the first or for another key', async () => {
    store = storeWithoutAccept();
    const acceptor = new SequentialAcceptor(store);
    const accept = (deliveryId: string, key: string) => acceptor.accept({ route: 'prs', deliveryId, rateLimit: 100, maxPending: 2, job: job(deliveryId, key) });
    const first = await accept('d-1', 'octo/repo#1');
    expect(first).toEqual({ outcome: 'accepted', jobId: expect.any(String) });
    expect(await accept('d-2', 'octo/repo#1')).toEqual({ outcome: 'accepted', jobId: (first as { jobId: string }).jobId, coalesced: true });
    expect(await accept('d-3', 'octo/repo#1')).toMatchObject({ coalesced: true });
    // Merged events added no pending job: with max_pending 2 a second key still fits.
    expect(await accept('d-4', 'octo/repo#2')).toEqual({ outcome: 'accepted', jobId: expect.any(String) });
    expect(await store.jobs.pendingCount()).toBe(2);
  });
});
