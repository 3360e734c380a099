// Store contract cases: per-destination delivery state on a job, and delivery progress.
import assert from 'node:assert/strict';
import type { DestinationState, JobError } from '@hookwise/core';
import { eventually, jobInput, same, sleep, type ContractKit, type StoreContractCase } from './store-contract-kit';

export function destinationCases({ withStore, leaseOne, takeover }: ContractKit): StoreContractCase[] {
  return [
    withStore("keeps each destination's delivery state on its job through retries, restarts of the step and completion", async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.saveAnswer(job.id, 'p', 'a');
      const failure: JobError = { at: 1, step: 'deliver', attempt: 1, destination: 'slack', message: 'HTTP 503', retryable: true };
      const states: DestinationState[] = [
        { destination: 'github_comment', status: 'delivered', attempts: 1, receipt: { url: 'https://x/1' }, deliveredAt: 5, errors: [] },
        { destination: 'slack', status: 'pending', attempts: 1, errors: [failure] },
      ];
      await jobs.saveDestinations(job.id, states);
      same((await jobs.get(job.id))?.destinations, states);
      // A retry: the state stays with the job while it waits and when it is leased again.
      await jobs.fail(job.id, failure, Date.now());
      same((await jobs.get(job.id))?.destinations, states);
      const again = await eventually('the retried job is leased', takeover, () => jobs.lease('owner-b', 30_000));
      same(again.destinations, states, 'a leased job carries its destinations');
      // A later write replaces the list (not merged).
      const delivered: DestinationState[] = [states[0], { ...states[1], status: 'delivered', attempts: 2, receipt: { ts: '1.2' }, deliveredAt: 9 }];
      await jobs.saveDestinations(job.id, delivered);
      await jobs.release(job.id);
      same((await jobs.get(job.id))?.destinations, delivered, 'kept through release');
      const third = await eventually('the released job is leased', takeover, () => jobs.lease('owner-a', 30_000));
      await jobs.complete(third.id, { destinations: 2 });
      const done = await jobs.get(job.id);
      assert.equal(done?.status, 'done');
      same(done?.destinations, delivered, 'kept on a done job');
      same((await jobs.findByDeliveryId(job.deliveryId))?.destinations, delivered);
      same((await jobs.list({ status: 'done' }))[0]?.destinations, delivered);
    }),
    withStore('keeps destination state on a dead letter and when it is retried', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.saveAnswer(job.id, 'p', 'a');
      const states: DestinationState[] = [
        { destination: 'github_comment', status: 'delivered', attempts: 1, receipt: { url: 'u' }, errors: [] },
        {
          destination: 'slack',
          status: 'dead',
          attempts: 5,
          errors: [{ at: 2, step: 'deliver', attempt: 5, destination: 'slack', message: 'invalid_auth', retryable: false }],
        },
      ];
      await jobs.saveDestinations(job.id, states);
      await jobs.fail(job.id, { at: 2, step: 'deliver', attempt: 1, destination: 'slack', message: 'invalid_auth', retryable: false }, null);
      same((await jobs.get(job.id))?.destinations, states);
      assert.equal(await jobs.retryDead(job.id), true);
      const revived = await eventually('a revived job is leased', takeover, () => jobs.lease('owner-a', 30_000));
      same(revived.destinations, states, 'the worker, not the store, decides what a retried dead letter sends again');
    }),
    withStore('a job without destination state has none', async (store) => {
      const job = await store.jobs.enqueue(jobInput());
      assert.equal((await store.jobs.get(job.id))?.destinations, undefined);
      await assert.rejects(store.jobs.saveDestinations('no-such-job', []), 'an unknown job is an error');
    }),
    withStore('delivery progress: set, get, replace, delete and expiry (when the store keeps progress)', async (store) => {
      const { progress } = store;
      if (!progress) return;
      const key = 'telegram\nci\nd-1';
      assert.equal(await progress.get(key), undefined);
      await progress.set(key, { ids: ['1'], already: [], partial: [] }, 60_000);
      same(await progress.get(key), { ids: ['1'], already: [], partial: [] });
      await progress.set(key, { ids: ['1', '2'], already: [], partial: [] }, 60_000);
      same(await progress.get(key), { ids: ['1', '2'], already: [], partial: [] });
      assert.equal(await progress.get('telegram\nother\nd-1'), undefined, 'keys are exact: another route is another entry');
      await progress.delete(key);
      assert.equal(await progress.get(key), undefined);
      await progress.set('short', 'x', 50);
      await sleep(120);
      assert.equal(await progress.get('short'), undefined, 'an entry is forgotten after its TTL');
    }),
  ];
}
