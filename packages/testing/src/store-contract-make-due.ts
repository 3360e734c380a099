// Store contract cases: JobQueue.makeDue, which makes a job waiting on a hold or a backoff due at once,
// e.g. when its approval is decided; skipped for a store declared without it.
import assert from 'node:assert/strict';
import type { Store } from '@hookwise/core';
import { eventually, jobInput, type ContractKit, type StoreContractCase } from './store-contract-kit';

const HOUR_MS = 3_600_000;

export function makeDueCases({ options, withStore, leaseOne, takeover, failure }: ContractKit): StoreContractCase[] {
  const makeDueCase = (name: string, body: (store: Store, makeDue: (jobId: string) => Promise<boolean>) => Promise<void>): StoreContractCase => {
    if (options.makeDue === false) return { name, skip: 'the store has no makeDue (options.makeDue: false)', run: async () => undefined };
    return withStore(name, async (store) => {
      assert.ok(store.jobs.makeDue, 'store.jobs.makeDue is missing: implement it, or pass { makeDue: false } to the contract to skip these cases');
      await body(store, store.jobs.makeDue.bind(store.jobs));
    });
  };
  return [
    makeDueCase('makeDue: a job held an hour ahead is leased right after it, its attempt still not counted', async (store, makeDue) => {
      const { jobs } = store;
      const held = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.saveAnswer(held.id, 'p', 'the draft');
      const note = 'waiting for approval by alice';
      await jobs.release(held.id, { runAt: Date.now() + HOUR_MS, note });
      assert.equal(await jobs.lease('owner-b', 30_000), undefined, 'a held job is not leased before makeDue');
      const before = Date.now();
      assert.equal(await makeDue(held.id), true);
      const due = await jobs.get(held.id);
      assert.equal(due?.status, 'pending');
      assert.ok(due && due.runAt >= before - 1000 && due.runAt <= Date.now(), `runAt is now, not an hour ahead (${due?.runAt})`);
      assert.equal(due?.note, note, 'the note stays until the job is leased');
      assert.equal(due?.step, 'deliver', 'the saved answer and step are kept');
      const leased = await jobs.lease('owner-b', 30_000);
      assert.equal(leased?.id, held.id, 'leased by the first lease after makeDue, without waiting for a poll');
      assert.equal(leased?.attempts, 1, 'the held delivery attempt was given back: this is its first');
      assert.equal(leased?.answer, 'the draft');
      assert.equal(leased?.note, undefined);
    }),
    makeDueCase("makeDue: a retry waiting out its backoff is leased right after it, with the failure's attempt counted", async (store, makeDue) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.fail(job.id, failure('flaky'), Date.now() + HOUR_MS);
      assert.equal(await jobs.lease('owner-b', 30_000), undefined);
      assert.equal(await makeDue(job.id), true);
      const leased = await jobs.lease('owner-b', 30_000);
      assert.equal(leased?.id, job.id);
      assert.equal(leased?.attempts, 2);
      assert.equal(leased?.errors.length, 1);
    }),
    makeDueCase('makeDue wakes idle workers (onReady)', async (store, makeDue) => {
      const { jobs } = store;
      if (!jobs.onReady) return;
      const held = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.release(held.id, { runAt: Date.now() + HOUR_MS, note: 'held' });
      // Wake-ups of the enqueue and the release may still be on their way: only those after makeDue count.
      await new Promise((r) => setTimeout(r, 100));
      let woken = 0;
      const off = jobs.onReady(() => {
        woken += 1;
      });
      try {
        await makeDue(held.id);
        await eventually('onReady fires after makeDue', takeover, async () => (woken > 0 ? true : undefined));
      } finally {
        off();
      }
    }),
    makeDueCase('makeDue of a pending job already due answers true and keeps the order', async (store, makeDue) => {
      const { jobs } = store;
      const first = await jobs.enqueue(jobInput());
      const second = await jobs.enqueue(jobInput());
      assert.equal(await makeDue(second.id), true);
      assert.equal((await leaseOne(store)).id, first.id, 'the job enqueued first is still leased first');
      assert.equal((await leaseOne(store)).id, second.id);
    }),
    makeDueCase('makeDue answers false and changes nothing for a running, done or dead job, or an unknown id', async (store, makeDue) => {
      const { jobs } = store;
      const running = await jobs.enqueue(jobInput());
      await leaseOne(store, 'owner-a');
      const leasedBefore = await jobs.get(running.id);
      assert.equal(await makeDue(running.id), false, 'a running job');
      const leasedAfter = await jobs.get(running.id);
      assert.equal(leasedAfter?.status, 'running');
      assert.equal(leasedAfter?.runAt, leasedBefore?.runAt);
      assert.equal(leasedAfter?.attempts, 1);
      assert.equal(await jobs.renew(running.id, 'owner-a', 30_000), true, 'its owner keeps the lease');
      assert.equal(await jobs.lease('owner-b', 30_000), undefined, 'nobody else leases it');
      await jobs.complete(running.id, { ok: true });
      const doneBefore = await jobs.get(running.id);
      assert.equal(await makeDue(running.id), false, 'a done job');
      const doneAfter = await jobs.get(running.id);
      assert.equal(doneAfter?.status, 'done');
      assert.equal(doneAfter?.finishedAt, doneBefore?.finishedAt);
      assert.equal(doneAfter?.updatedAt, doneBefore?.updatedAt);
      const dead = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.fail(dead.id, { ...failure('broken'), retryable: false }, null);
      assert.equal(await makeDue(dead.id), false, 'a dead letter');
      assert.equal((await jobs.get(dead.id))?.status, 'dead');
      assert.equal(await jobs.lease('owner-b', 30_000), undefined, 'a dead letter is not leased');
      assert.equal(await makeDue('no-such-job'), false, 'an unknown id');
      assert.equal(await jobs.pendingCount(), 0);
    }),
  ];
}
