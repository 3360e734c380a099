// Store contract cases: delivery-id claims and rate-limit windows, and the accept that does both with the enqueue.
import assert from 'node:assert/strict';
import { acceptorOf, acceptRequest, same, type ContractKit, type StoreContractCase } from './store-contract-kit';

export function claimCases({ withStore }: ContractKit): StoreContractCase[] {
  return [
    withStore('claims a delivery id once per route and again after release', async ({ deliveryIds }) => {
      assert.equal(await deliveryIds.claim('ci', 'abc'), true);
      assert.equal(await deliveryIds.claim('ci', 'abc'), false);
      assert.equal(await deliveryIds.claim('other', 'abc'), true);
      await deliveryIds.release('ci', 'abc');
      assert.equal(await deliveryIds.claim('ci', 'abc'), true);
    }),
    withStore('lets exactly one of many concurrent claims of one id win', async ({ deliveryIds }) => {
      const results = await Promise.all(Array.from({ length: 20 }, () => deliveryIds.claim('ci', 'race')));
      assert.equal(results.filter(Boolean).length, 1);
    }),
    withStore('counts rate-limit hits up to the limit; check only peeks', async ({ rateLimiter }) => {
      for (let i = 0; i < 5; i += 1) assert.equal((await rateLimiter.check('ci', 3)).allowed, true);
      const hits = [];
      for (let i = 0; i < 4; i += 1) hits.push(await rateLimiter.hit('ci', 3));
      same(
        hits.map((h) => h.allowed),
        [true, true, true, false],
      );
      const window = await rateLimiter.check('ci', 3);
      assert.equal(window.allowed, false);
      assert.ok(window.retryAfterSeconds >= 1 && window.retryAfterSeconds <= 60, `retryAfterSeconds ${window.retryAfterSeconds}`);
      assert.equal((await rateLimiter.check('other', 3)).allowed, true);
    }),
    withStore('never lets concurrent hits exceed the limit', async ({ rateLimiter }) => {
      const hits = await Promise.all(Array.from({ length: 25 }, () => rateLimiter.hit('burst', 10)));
      assert.equal(hits.filter((h) => h.allowed).length, 10);
    }),
  ];
}

export function acceptCases({ withStore }: ContractKit): StoreContractCase[] {
  return [
    withStore('accepts an event: counts the hit, remembers the id, enqueues the job', async (store) => {
      const accept = acceptorOf(store);
      const request = acceptRequest({ deliveryId: 'acc-1' });
      const result = await accept(request);
      assert.equal(result.outcome, 'accepted');
      const jobId = (result as { jobId: string }).jobId;
      const job = await store.jobs.get(jobId);
      assert.equal(job?.deliveryId, 'acc-1');
      assert.equal(job?.status, 'pending');
      same(job?.payload, request.job?.payload);
      assert.equal(await store.jobs.pendingCount(), 1);
      same(await accept(acceptRequest({ deliveryId: 'acc-1' })), { outcome: 'duplicate' });
      assert.equal((await accept(acceptRequest({ route: 'other', deliveryId: 'acc-1' }))).outcome, 'accepted');
      assert.equal(await store.jobs.pendingCount(), 2);
    }),
    withStore('accept remembers the id of an ignored event without enqueueing it', async (store) => {
      const accept = acceptorOf(store);
      same(await accept(acceptRequest({ deliveryId: 'ign-1', job: undefined })), { outcome: 'ignored' });
      same(await accept(acceptRequest({ deliveryId: 'ign-1' })), { outcome: 'duplicate' });
      assert.equal(await store.jobs.pendingCount(), 0);
    }),
    withStore('accept refuses a full rate window and does not remember the id', async (store) => {
      const accept = acceptorOf(store);
      for (let i = 0; i < 2; i += 1) assert.equal((await accept(acceptRequest({ rateLimit: 2 }))).outcome, 'accepted');
      const refused = await accept(acceptRequest({ deliveryId: 'late', rateLimit: 2 }));
      assert.equal(refused.outcome, 'rate_limited');
      const seconds = (refused as { retryAfterSeconds: number }).retryAfterSeconds;
      assert.ok(seconds >= 1 && seconds <= 60, `retryAfterSeconds ${seconds}`);
      assert.equal((await store.rateLimiter.check('ci', 2)).allowed, false);
      assert.equal((await accept(acceptRequest({ deliveryId: 'late', rateLimit: 10 }))).outcome, 'accepted');
      assert.equal(await store.jobs.pendingCount(), 3);
    }),
    withStore('accept answers backpressure above maxPending and does not remember the id', async (store) => {
      const accept = acceptorOf(store);
      assert.equal((await accept(acceptRequest({ maxPending: 1 }))).outcome, 'accepted');
      same(await accept(acceptRequest({ deliveryId: 'bp-1', maxPending: 1 })), { outcome: 'backpressure' });
      // A duplicate is still a duplicate under backpressure.
      assert.equal((await accept(acceptRequest({ deliveryId: 'bp-1', maxPending: 2 }))).outcome, 'accepted');
      same(await accept(acceptRequest({ deliveryId: 'bp-1', maxPending: 1 })), { outcome: 'duplicate' });
      assert.equal(await store.jobs.pendingCount(), 2);
    }),
    withStore('concurrent accepts: one id runs once, a window never overflows, the queue never passes maxPending', async (store) => {
      const accept = acceptorOf(store);
      const same20 = await Promise.all(Array.from({ length: 20 }, () => accept(acceptRequest({ deliveryId: 'race' }))));
      assert.equal(same20.filter((r) => r.outcome === 'accepted').length, 1);
      assert.equal(same20.filter((r) => r.outcome === 'duplicate').length, 19);
      const burst = await Promise.all(Array.from({ length: 25 }, () => accept(acceptRequest({ route: 'burst', rateLimit: 10 }))));
      assert.equal(burst.filter((r) => r.outcome === 'accepted').length, 10);
      assert.equal(burst.filter((r) => r.outcome === 'rate_limited').length, 15);
      const full = await Promise.all(Array.from({ length: 10 }, () => accept(acceptRequest({ route: 'full', maxPending: 15 }))));
      assert.equal(full.filter((r) => r.outcome === 'accepted').length, 4);
      assert.equal(await store.jobs.pendingCount(), 15);
    }),
  ];
}
