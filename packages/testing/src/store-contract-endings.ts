// Store contract cases: usage, outcomes and holds, and a job kept apart from the input it came from.
import assert from 'node:assert/strict';
import { eventually, jobInput, same, type ContractKit, type StoreContractCase } from './store-contract-kit';

export function endingCases({ withStore, leaseOne, takeover, failure }: ContractKit): StoreContractCase[] {
  return [
    withStore('saveAnswer keeps the usage the runner reported; get, findByDeliveryId, lease and list return it', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store);
      const usage = { inputTokens: 1200, outputTokens: 340, cachedInputTokens: 1000, cacheWriteTokens: 0 };
      await jobs.saveAnswer(job.id, 'p', 'a', usage);
      same((await jobs.get(job.id))?.usage, usage);
      same((await jobs.findByDeliveryId(job.deliveryId))?.usage, usage);
      await jobs.release(job.id);
      same((await eventually('the released job is leased', takeover, () => jobs.lease('owner-b', 30_000))).usage, usage, 'a leased job carries its usage');
      await jobs.complete(job.id, {});
      same((await jobs.list({ status: 'done' }))[0]?.usage, usage);
      // A runner that reports part of the usage, and one that reports none.
      const partly = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.saveAnswer(partly.id, 'p', 'a', { outputTokens: 5 });
      same((await jobs.get(partly.id))?.usage, { outputTokens: 5 });
      await jobs.complete(partly.id, {});
      const none = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.saveAnswer(none.id, 'p', 'a');
      assert.equal((await jobs.get(none.id))?.usage, undefined);
    }),
    withStore('complete with an ending records its outcome and note; a plain complete leaves the outcome absent', async (store) => {
      const { jobs } = store;
      const delivered = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.complete(delivered.id, { url: 'https://example.invalid/1' });
      const plainDone = await jobs.get(delivered.id);
      assert.equal(plainDone?.status, 'done');
      assert.equal(plainDone?.outcome, undefined, 'absent means delivered');
      assert.equal(plainDone?.note, undefined);
      const silent = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.saveAnswer(silent.id, 'p', '[SILENT]');
      await jobs.complete(silent.id, undefined, { outcome: 'silent', note: 'the agent answered the silent marker' });
      const silentDone = await jobs.get(silent.id);
      assert.equal(silentDone?.status, 'done');
      assert.equal(silentDone?.outcome, 'silent');
      assert.equal(silentDone?.note, 'the agent answered the silent marker');
      assert.ok(silentDone?.finishedAt);
      const skipped = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.complete(skipped.id, undefined, { outcome: 'skipped' });
      const skippedDone = await jobs.findByDeliveryId(skipped.deliveryId);
      assert.equal(skippedDone?.outcome, 'skipped');
      assert.equal(skippedDone?.note, undefined, 'an ending without a note leaves none');
      const outcomes = new Map((await jobs.list({ status: 'done' })).map((j) => [j.id, j.outcome ?? 'absent']));
      same(Object.fromEntries(outcomes), { [skipped.id]: 'skipped', [silent.id]: 'silent', [delivered.id]: 'absent' }, 'list returns the outcomes');
      assert.equal(await jobs.pendingCount(), 0);
    }),
    withStore('release with a hold: pending until the hold ends, attempt not counted, its note shown until the job is leased again', async (store) => {
      const { jobs } = store;
      const held = await jobs.enqueue(jobInput());
      await leaseOne(store);
      const until = Date.now() + 60_000;
      const note = 'route budget runs_per_hour (1) spent; waiting until the next hour';
      await jobs.release(held.id, { runAt: until, note });
      const waiting = await jobs.get(held.id);
      assert.equal(waiting?.status, 'pending');
      assert.equal(waiting?.attempts, 0, 'the held attempt is not counted');
      assert.equal(waiting?.runAt, until);
      assert.equal(waiting?.note, note);
      assert.equal(await jobs.pendingCount(), 1);
      assert.equal(await jobs.lease('owner-b', 30_000), undefined, 'a held job is not leased before its hold ends');
      // A short hold: leased once it ends, and the note is gone then.
      const short = await jobs.enqueue(jobInput());
      assert.equal((await leaseOne(store)).id, short.id);
      await jobs.release(short.id, { runAt: Date.now() + 200, note: 'wait a moment' });
      assert.equal((await jobs.get(short.id))?.note, 'wait a moment');
      const again = await eventually('the job is leased when its hold ends', takeover, () => jobs.lease('owner-b', 30_000));
      assert.equal(again.id, short.id);
      assert.equal(again.attempts, 1);
      assert.equal(again.note, undefined, 'the note is cleared when the job is leased again');
      assert.equal((await jobs.get(short.id))?.note, undefined);
      assert.equal((await jobs.get(held.id))?.note, note, 'the other job still waits with its note');
    }),
    withStore('release with a hold in the delivery step keeps the answer and the attempts before the lease', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.saveAnswer(job.id, 'p', 'kept answer');
      await jobs.fail(job.id, { ...failure('HTTP 503'), step: 'deliver' }, Date.now());
      const second = await eventually('the retry is leased', takeover, () => jobs.lease('owner-a', 30_000));
      assert.equal(second.attempts, 2);
      await jobs.release(job.id, { runAt: Date.now() + 100, note: 'held' });
      const held = await jobs.get(job.id);
      assert.equal(held?.attempts, 1, 'back to what it was before the lease');
      assert.equal(held?.step, 'deliver');
      const third = await eventually('the held job is leased', takeover, () => jobs.lease('owner-a', 30_000));
      assert.equal(third.attempts, 2);
      assert.equal(third.answer, 'kept answer');
      assert.equal(third.errors.length, 1);
    }),
    withStore('keeps a job apart from the input it was enqueued from: later changes to that object do not reach the job', async ({ jobs }) => {
      const routeDefinition = { origin: 'static' as const, prompt: 'Review {number}', skills: ['review'], deliver: 'github_comment', deliverExtra: {} };
      const input = jobInput({ payload: { title: 'first', list: [1] }, routeDefinition });
      const job = await jobs.enqueue(input);
      (input.payload as { title: string; list: number[] }).title = 'changed';
      (input.payload as { title: string; list: number[] }).list.push(2);
      routeDefinition.skills.push('other');
      routeDefinition.prompt = 'changed';
      same((await jobs.get(job.id))?.payload, { title: 'first', list: [1] });
      same((await jobs.get(job.id))?.routeDefinition, {
        origin: 'static',
        prompt: 'Review {number}',
        skills: ['review'],
        deliver: 'github_comment',
        deliverExtra: {},
      });
    }),
  ];
}
