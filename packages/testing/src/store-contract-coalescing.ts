// Store contract cases: coalescing events of one route and key into one waiting job.
import assert from 'node:assert/strict';
import { COALESCE_MAX_EVENTS, type AcceptRequest } from '@hookwise/core';
import { acceptorOf, acceptRequest, jobInput, same, type ContractKit, type StoreContractCase } from './store-contract-kit';

export function coalescingCases({ withStore, leaseOne, coalescing }: ContractKit): StoreContractCase[] {
  return [
    withStore('coalesces events of one route and key into one waiting job (mode latest): the latest payload and event, every delivery id', async ({ jobs }) => {
      const start = Date.now();
      const first = coalescing('pr-1', 'latest', { event: 'pull_request', payload: { n: 1 }, receivedAt: start });
      const created = await jobs.enqueue(first);
      assert.equal(created.status, 'pending');
      assert.equal(created.coalesceKey, 'pr-1');
      assert.equal(created.runAt, start + 60_000, 'due windowMs after its first event');
      same(created.coalesced, { deliveryIds: [first.deliveryId] });
      const second = coalescing('pr-1', 'latest', { event: 'push', payload: { n: 2 }, receivedAt: start + 1_000 });
      const third = coalescing('pr-1', 'latest', { event: 'pull_request_review', payload: { n: 3 }, receivedAt: start + 2_000 });
      assert.equal((await jobs.enqueue(second)).id, created.id);
      const merged = await jobs.enqueue(third);
      assert.equal(merged.id, created.id, 'enqueue returns the job the event joined');
      same(merged.coalesced?.deliveryIds, [first.deliveryId, second.deliveryId, third.deliveryId]);
      const stored = await jobs.get(created.id);
      same(stored?.payload, { n: 3 });
      assert.equal(stored?.event, 'pull_request_review');
      assert.equal(stored?.deliveryId, first.deliveryId, 'the job keeps its first delivery id');
      same(stored?.coalesced, { deliveryIds: [first.deliveryId, second.deliveryId, third.deliveryId] }, 'mode latest keeps no payload list');
      assert.equal(stored?.runAt, start + 60_000, 'the window is never extended');
      assert.equal(await jobs.pendingCount(), 1);
      for (const input of [first, second, third]) assert.equal((await jobs.findByDeliveryId(input.deliveryId))?.id, created.id, input.deliveryId);
      assert.equal(await jobs.lease('owner-a', 30_000), undefined, 'not leased before its window ends');
    }),
    withStore('mode all keeps every payload in arrival order, and the latest as the payload', async ({ jobs }) => {
      const inputs = [1, 2, 3, 4].map((n) => coalescing('pr-2', 'all', { payload: { n, text: `event ${n}` } }));
      const ids = new Set<string>();
      for (const input of inputs) ids.add((await jobs.enqueue(input)).id);
      assert.equal(ids.size, 1);
      const stored = await jobs.get([...ids][0] as string);
      same(stored?.coalesced, {
        deliveryIds: inputs.map((i) => i.deliveryId),
        payloads: inputs.map((i) => i.payload),
      });
      same(stored?.payload, { n: 4, text: 'event 4' });
      const alone = await jobs.enqueue(coalescing('pr-3', 'all', { payload: { only: true } }));
      same(alone.coalesced, { deliveryIds: [alone.deliveryId], payloads: [{ only: true }] });
    }),
    withStore('another key, another route or no coalescing: a job of its own', async ({ jobs }) => {
      const first = await jobs.enqueue(coalescing('pr-1', 'latest', { route: 'a' }));
      const otherKey = await jobs.enqueue(coalescing('pr-2', 'latest', { route: 'a' }));
      const otherRoute = await jobs.enqueue(coalescing('pr-1', 'latest', { route: 'b' }));
      const plainJob = await jobs.enqueue(jobInput({ route: 'a' }));
      assert.equal(new Set([first.id, otherKey.id, otherRoute.id, plainJob.id]).size, 4);
      assert.equal(plainJob.coalesced, undefined, 'a job enqueued without coalesce has no coalesced events');
      assert.equal(plainJob.coalesceKey, undefined);
      const joined = await jobs.enqueue(coalescing('pr-1', 'latest', { route: 'a' }));
      assert.equal(joined.id, first.id);
      assert.equal(await jobs.pendingCount(), 4);
    }),
    withStore('a job that was leased never takes more events, also once a shutdown handed it back', async (store) => {
      const { jobs } = store;
      // Its window already ended: due at once.
      const first = await jobs.enqueue(coalescing('pr-4', 'latest', { receivedAt: Date.now() - 120_000 }));
      assert.equal((await leaseOne(store)).id, first.id);
      const second = await jobs.enqueue(coalescing('pr-4', 'latest'));
      assert.notEqual(second.id, first.id, 'an event after the lease starts a new job');
      same(second.coalesced?.deliveryIds, [second.deliveryId]);
      await jobs.release(first.id);
      assert.equal((await jobs.get(first.id))?.attempts, 0);
      const third = await jobs.enqueue(coalescing('pr-4', 'latest'));
      assert.equal(third.id, second.id, 'the released job does not take it: the new job does');
      same((await jobs.get(first.id))?.coalesced?.deliveryIds, [first.deliveryId]);
      assert.equal(await jobs.pendingCount(), 2);
    }),
    withStore(
      `a job holds at most COALESCE_MAX_EVENTS (${COALESCE_MAX_EVENTS}) events; the next starts a new job that takes the ones after it`,
      async ({ jobs }) => {
        const inputs = Array.from({ length: COALESCE_MAX_EVENTS + 2 }, (_, i) => coalescing('pr-5', 'all', { payload: { i } }));
        const ids: string[] = [];
        for (const input of inputs) ids.push((await jobs.enqueue(input)).id);
        const [full, next] = [ids[0] as string, ids[COALESCE_MAX_EVENTS] as string];
        assert.equal(new Set(ids.slice(0, COALESCE_MAX_EVENTS)).size, 1);
        assert.notEqual(next, full);
        assert.equal(ids[COALESCE_MAX_EVENTS + 1], next);
        const fullJob = await jobs.get(full);
        assert.equal(fullJob?.coalesced?.deliveryIds.length, COALESCE_MAX_EVENTS);
        same(fullJob?.coalesced?.payloads?.at(-1), { i: COALESCE_MAX_EVENTS - 1 });
        same((await jobs.get(next))?.coalesced?.deliveryIds, [inputs[COALESCE_MAX_EVENTS]?.deliveryId, inputs[COALESCE_MAX_EVENTS + 1]?.deliveryId]);
        assert.equal((await jobs.findByDeliveryId(inputs[COALESCE_MAX_EVENTS - 1]?.deliveryId ?? ''))?.id, full);
        assert.equal(await jobs.pendingCount(), 2);
      },
    ),
    withStore('accept coalesces: a joining event is accepted with the waiting job id and coalesced: true; its id is then a duplicate', async (store) => {
      const accept = acceptorOf(store);
      const request = (deliveryId: string): AcceptRequest =>
        acceptRequest({ deliveryId, job: coalescing('pr-9', 'all', { deliveryId, payload: { deliveryId } }) });
      const first = await accept(request('co-1'));
      assert.equal(first.outcome, 'accepted');
      assert.ok(!(first as { coalesced?: boolean }).coalesced, 'the first event makes the job');
      const jobId = (first as { jobId: string }).jobId;
      same(await accept(request('co-2')), { outcome: 'accepted', jobId, coalesced: true });
      same(await accept(request('co-2')), { outcome: 'duplicate' });
      same(await accept(request('co-3')), { outcome: 'accepted', jobId, coalesced: true });
      assert.equal(await store.jobs.pendingCount(), 1);
      same((await store.jobs.get(jobId))?.coalesced, {
        deliveryIds: ['co-1', 'co-2', 'co-3'],
        payloads: [{ deliveryId: 'co-1' }, { deliveryId: 'co-2' }, { deliveryId: 'co-3' }],
      });
      assert.equal((await store.jobs.findByDeliveryId('co-3'))?.id, jobId);
    }),
  ];
}
