// Store contract cases: retention. `JobQueue.purgeFinished` is optional, newer than the contract's other
// parts, so a store without it (an older third-party store) passes these cases empty, as with memos.
import assert from 'node:assert/strict';
import type { Job, Store } from '@hookwise/core';
import { jobInput, same, sleep, type ContractKit, type StoreContractCase } from './store-contract-kit';

type Purge = NonNullable<Store['jobs']['purgeFinished']>;

export function retentionCases({ withStore, leaseOne, failure }: ContractKit): StoreContractCase[] {
  const retentionCase = (name: string, body: (store: Store, purge: Purge) => Promise<void>): StoreContractCase =>
    withStore(`${name} (when the store has purgeFinished)`, async (store) => {
      if (store.jobs.purgeFinished) await body(store, store.jobs.purgeFinished.bind(store.jobs));
    });
  /** A job enqueued, leased and answered, then ended as `complete` does. */
  const doneJob = async (store: Store, route = 'ci'): Promise<Job> => {
    const job = await store.jobs.enqueue(jobInput({ route }));
    const leased = await leaseOne(store);
    assert.equal(leased.id, job.id, 'the job just enqueued is the one leased');
    await store.jobs.saveAnswer(job.id, 'prompt', 'answer', { inputTokens: 10, outputTokens: 5 });
    await store.jobs.complete(job.id, { ok: true });
    return job;
  };
  return [
    retentionCase('purgeFinished: deletes done jobs finished before the cutoff, counts them with dryRun, keeps the rest', async (store, purge) => {
      const old1 = await doneJob(store);
      const old2 = await doneJob(store, 'other');
      const dead = await store.jobs.enqueue(jobInput());
      await leaseOne(store);
      await store.jobs.fail(dead.id, failure('gave up'), null);
      await sleep(40);
      const cutoff = Date.now();
      await sleep(40);
      const recent = await doneJob(store);
      const waiting = await store.jobs.enqueue(jobInput());

      assert.equal(await purge(cutoff, { dryRun: true }), 2, 'a dry run counts the two done jobs that finished before the cutoff');
      assert.ok(await store.jobs.get(old1.id), 'a dry run deletes nothing');
      assert.equal(await purge(cutoff), 2, 'the two old done jobs are deleted');
      assert.equal(await store.jobs.get(old1.id), undefined, 'an old done job is gone');
      assert.equal(await store.jobs.get(old2.id), undefined, 'of every route');
      assert.equal(await store.jobs.findByDeliveryId(old1.deliveryId), undefined, 'and is not found by its delivery id');
      assert.equal((await store.jobs.get(dead.id))?.status, 'dead', 'a dead letter is kept, however old');
      const kept = await store.jobs.get(recent.id);
      assert.equal(kept?.answer, 'answer', 'a done job that finished after the cutoff keeps its answer');
      assert.equal((await store.jobs.get(waiting.id))?.status, 'pending', 'a waiting job is kept');
      same(
        (await store.jobs.list({ status: 'done' })).map((j) => j.id),
        [recent.id],
        'list no longer shows the deleted jobs',
      );
      assert.equal(await purge(cutoff), 0, 'a second purge finds nothing');
    }),
    retentionCase('purgeFinished: a cutoff before every job deletes nothing, on an empty store too', async (store, purge) => {
      assert.equal(await purge(Date.now()), 0, 'an empty store');
      const before = Date.now() - 60_000;
      const job = await doneJob(store);
      await store.jobs.enqueue(jobInput());
      assert.equal(await purge(before, { dryRun: true }), 0);
      assert.equal(await purge(before), 0);
      assert.equal((await store.jobs.get(job.id))?.status, 'done');
    }),
  ];
}
