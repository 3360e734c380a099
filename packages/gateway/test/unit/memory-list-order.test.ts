import { MemoryJobQueue } from '../../src/stores/memory';

// Jobs created in the same millisecond (a burst of webhooks) list newest first, as the SQLite and Redis stores list
// them: a tie on the creation time keeps the order the jobs were made in, reversed.
it('lists jobs made in one millisecond newest first', async () => {
  const jobs = new MemoryJobQueue(() => 5_000);
  for (const id of ['d-1', 'd-2', 'd-3']) await jobs.enqueue({ route: 'ci', event: 'push', deliveryId: id, payload: {}, receivedAt: 5_000 });
  expect((await jobs.list()).map((job) => job.deliveryId)).toEqual(['d-3', 'd-2', 'd-1']);
  expect((await jobs.listSummaries({ limit: 2 })).map((job) => job.deliveryId)).toEqual(['d-3', 'd-2']);
});
