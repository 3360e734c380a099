// Store contract cases: the job queue's life cycle (enqueue, lease, answer, complete, fail, dead letters, release,
// takeover, list) and its wake-ups.
import assert from 'node:assert/strict';
import type { Job } from '@hookwise/core';
import { eventually, jobInput, same, sleep, type ContractKit, type StoreContractCase } from './store-contract-kit';

export function jobQueueCases({ withStore, leaseOne, shortLease, takeover }: ContractKit): StoreContractCase[] {
  return [
    withStore('enqueues a pending job that keeps its payload', async ({ jobs }) => {
      const input = jobInput({ payload: { title: 'héllo', list: [1, 2, { x: null }] } });
      const job = await jobs.enqueue(input);
      assert.equal(job.status, 'pending');
      assert.equal(job.step, 'agent');
      assert.equal(job.attempts, 0);
      same(job.errors, []);
      const stored = await jobs.get(job.id);
      same(stored?.payload, input.payload);
      assert.equal(stored?.deliveryId, input.deliveryId);
      assert.equal((await jobs.findByDeliveryId(input.deliveryId))?.id, job.id);
      assert.equal(await jobs.pendingCount(), 1);
      assert.equal(await jobs.get('no-such-job'), undefined);
    }),
    withStore('leases a job to one owner at a time', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      const leased = await leaseOne(store);
      assert.equal(leased.id, job.id);
      assert.equal(leased.status, 'running');
      assert.equal(leased.attempts, 1);
      assert.equal(await jobs.lease('owner-b', 30_000), undefined);
      assert.equal(await jobs.renew(job.id, 'owner-b', 30_000), false);
      assert.equal(await jobs.renew(job.id, 'owner-a', 30_000), true);
      assert.equal(await jobs.pendingCount(), 1);
    }),
    withStore('hands out each of many jobs exactly once to concurrent leasers', async ({ jobs }) => {
      for (let i = 0; i < 10; i += 1) await jobs.enqueue(jobInput());
      const leased = await Promise.all(Array.from({ length: 15 }, (_, i) => jobs.lease(`owner-${i}`, 30_000)));
      const ids = leased.filter((j): j is Job => j !== undefined).map((j) => j.id);
      assert.equal(ids.length, 10);
      assert.equal(new Set(ids).size, 10);
    }),
    withStore('stores the answer before delivery and completes with a receipt', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.saveAnswer(job.id, 'the prompt', 'the answer');
      const mid = await jobs.get(job.id);
      assert.equal(mid?.step, 'deliver');
      assert.equal(mid?.attempts, 1, 'the first delivery attempt runs at once under the same lease');
      assert.equal(mid?.prompt, 'the prompt');
      assert.equal(mid?.answer, 'the answer');
      await jobs.complete(job.id, { url: 'https://example.invalid/1' });
      const done = await jobs.get(job.id);
      assert.equal(done?.status, 'done');
      same(done?.receipt, { url: 'https://example.invalid/1' });
      assert.ok(done?.finishedAt);
      assert.equal(await jobs.pendingCount(), 0);
      assert.equal(await jobs.lease('owner-a', 30_000), undefined);
    }),
    withStore('records a failure and retries only once the retry time has come', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.fail(job.id, { at: Date.now(), step: 'agent', attempt: 1, message: 'boom', retryable: true }, Date.now() + 60_000);
      const waiting = await jobs.get(job.id);
      assert.equal(waiting?.status, 'pending');
      same(
        waiting?.errors.map((e) => e.message),
        ['boom'],
      );
      assert.equal(await jobs.lease('owner-a', 30_000), undefined, 'a job is not leased before its retry time');
      const other = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.fail(other.id, { at: Date.now(), step: 'agent', attempt: 1, message: 'first', retryable: true }, Date.now() - 1);
      const again = await eventually('a due retry is leased', takeover, () => jobs.lease('owner-a', 30_000));
      assert.equal(again.id, other.id);
      assert.equal(again.attempts, 2);
      assert.equal(again.errors.length, 1);
    }),
    withStore('keeps an exhausted job as a dead letter and can put it back, keeping the saved answer', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.saveAnswer(job.id, 'p', 'kept answer');
      await jobs.fail(job.id, { at: Date.now(), step: 'deliver', attempt: 1, message: 'HTTP 400', retryable: false }, null);
      const dead = await jobs.get(job.id);
      assert.equal(dead?.status, 'dead');
      assert.ok(dead?.finishedAt);
      assert.equal(await jobs.pendingCount(), 0);
      same(
        (await jobs.list({ status: 'dead' })).map((j) => j.id),
        [job.id],
      );
      assert.equal(await jobs.retryDead('no-such-job'), false);
      assert.equal(await jobs.retryDead(job.id), true);
      assert.equal(await jobs.retryDead(job.id), false, 'only a dead job can be retried');
      const revived = await eventually('a revived job is leased', takeover, () => jobs.lease('owner-a', 30_000));
      assert.equal(revived.id, job.id);
      assert.equal(revived.step, 'deliver');
      assert.equal(revived.answer, 'kept answer');
      assert.equal(revived.attempts, 1);
      assert.equal(revived.errors.length, 1);
    }),
    withStore('hands a released job back without counting the attempt', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.release(job.id);
      const back = await jobs.get(job.id);
      assert.equal(back?.status, 'pending');
      assert.equal(back?.attempts, 0);
      const again = await eventually('a released job is leased again', takeover, () => jobs.lease('owner-b', 30_000));
      assert.equal(again.id, job.id);
      assert.equal(again.attempts, 1);
    }),
    withStore('gives a job whose lease expired to another owner', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store, 'owner-a', shortLease);
      const taken = await eventually('an expired lease is taken over', takeover, () => jobs.lease('owner-b', 30_000));
      assert.equal(taken.id, job.id);
      assert.equal(taken.attempts, 2);
      assert.equal(await jobs.renew(job.id, 'owner-a', 30_000), false, 'the first owner lost its lease');
    }),
    withStore('lists jobs newest first, filtered by status and route, with a limit', async (store) => {
      const { jobs } = store;
      const a = await jobs.enqueue(jobInput({ route: 'a', receivedAt: 1 }));
      await sleep(5);
      const b = await jobs.enqueue(jobInput({ route: 'b', receivedAt: 2 }));
      await sleep(5);
      const c = await jobs.enqueue(jobInput({ route: 'a', receivedAt: 3 }));
      same(
        (await jobs.list()).map((j) => j.id),
        [c.id, b.id, a.id],
      );
      same(
        (await jobs.list({ route: 'a' })).map((j) => j.id),
        [c.id, a.id],
      );
      same(
        (await jobs.list({ limit: 1 })).map((j) => j.id),
        [c.id],
      );
      const leased = await leaseOne(store);
      await jobs.complete(leased.id, {});
      same(
        (await jobs.list({ status: 'done' })).map((j) => j.id),
        [leased.id],
      );
      assert.equal((await jobs.list({ status: 'pending' })).length, 2);
    }),
  ];
}

export function wakeCases({ withStore, takeover }: ContractKit): StoreContractCase[] {
  return [
    withStore('wakes idle workers when a job is enqueued', async ({ jobs }) => {
      if (!jobs.onReady) return;
      let woken = 0;
      const off = jobs.onReady(() => {
        woken += 1;
      });
      await jobs.enqueue(jobInput());
      await eventually('onReady fires', takeover, async () => (woken > 0 ? true : undefined));
      off();
    }),
  ];
}
