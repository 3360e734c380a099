// Store contract cases: concurrency keys, one running job per route and key.
import assert from 'node:assert/strict';
import { eventually, jobInput, type ContractKit, type StoreContractCase } from './store-contract-kit';

export function concurrencyCases({ withStore, leaseOne, shortLease, takeover, failure }: ContractKit): StoreContractCase[] {
  return [
    withStore(
      'concurrency key: lease skips a job whose route and key has a running job and takes the next; the skipped one follows when that one ends',
      async (store) => {
        const { jobs } = store;
        const a = await jobs.enqueue(jobInput({ concurrencyKey: 'pr-1' }));
        const b = await jobs.enqueue(jobInput({ concurrencyKey: 'pr-1' }));
        const c = await jobs.enqueue(jobInput({ concurrencyKey: 'pr-2' }));
        const d = await jobs.enqueue(jobInput({ route: 'other', concurrencyKey: 'pr-1' }));
        const e = await jobs.enqueue(jobInput());
        assert.equal((await jobs.get(a.id))?.concurrencyKey, 'pr-1');
        assert.equal((await leaseOne(store)).id, a.id);
        assert.equal((await leaseOne(store)).id, c.id, 'b waits for a; c (another key) is next');
        assert.equal((await leaseOne(store)).id, d.id, 'the same key on another route is another key');
        assert.equal((await leaseOne(store)).id, e.id);
        assert.equal(await jobs.lease('owner-a', 30_000), undefined);
        assert.equal((await jobs.get(b.id))?.status, 'pending');
        assert.equal(await jobs.pendingCount(), 5);
        let woken = 0;
        const off = jobs.onReady?.(() => {
          woken += 1;
        });
        await jobs.complete(a.id, {});
        assert.equal((await eventually('b is leased once a is done', takeover, () => jobs.lease('owner-a', 30_000))).id, b.id);
        if (off) assert.ok(woken > 0, 'onReady fired when the key became free');
        off?.();
      },
    ),
    withStore('concurrency key: freed when the running job fails (retry later) or is handed back; never two at once', async (store) => {
      const { jobs } = store;
      const a = await jobs.enqueue(jobInput({ concurrencyKey: 'k' }));
      const b = await jobs.enqueue(jobInput({ concurrencyKey: 'k' }));
      assert.equal((await leaseOne(store)).id, a.id);
      assert.equal(await jobs.lease('owner-b', 30_000), undefined);
      await jobs.fail(a.id, failure('boom'), Date.now() + 60_000);
      assert.equal((await eventually('b is leased once a failed', takeover, () => jobs.lease('owner-b', 30_000))).id, b.id);
      await jobs.release(b.id);
      const next = await eventually('b is leased again after its release', takeover, () => jobs.lease('owner-b', 30_000));
      assert.equal(next.id, b.id);
      const c = await jobs.enqueue(jobInput({ concurrencyKey: 'k' }));
      await jobs.release(b.id);
      const one = await eventually('one of b and c is leased', takeover, () => jobs.lease('owner-c', 30_000));
      assert.ok([b.id, c.id].includes(one.id));
      assert.equal(await jobs.lease('owner-c', 30_000), undefined, 'the other one waits: one running job per key');
    }),
    withStore('concurrency key: a running job whose lease expired blocks nothing, and is not taken over while another of its key runs', async (store) => {
      const { jobs } = store;
      await jobs.enqueue(jobInput({ concurrencyKey: 'k' }));
      await jobs.enqueue(jobInput({ concurrencyKey: 'k' }));
      const leasedAt = Date.now();
      await leaseOne(store, 'owner-a', shortLease);
      const early = await jobs.lease('owner-b', 30_000);
      // Handed out only if the first lease had expired meanwhile (a slow machine); otherwise the key is busy.
      if (early) assert.ok(Date.now() - leasedAt >= shortLease, 'a job of a key with a running job under a live lease was leased');
      const taken = early ?? (await eventually('a job of the key is leased once the lease expired', takeover, () => jobs.lease('owner-b', 30_000)));
      assert.ok(taken);
      assert.equal(await jobs.lease('owner-c', 30_000), undefined, 'the key runs one job under a live lease');
    }),
  ];
}
