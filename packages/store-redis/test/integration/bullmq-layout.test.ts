// The accept script writes jobs in bullmq's own key layout (src/bullmq-layout.ts). This test compares what it writes
// with what bullmq's `Queue.add` writes for the same options, and lets bullmq's own worker take both: it fails when
// a bullmq upgrade changes the layout, which must then be checked against bullmq's add scripts before the pin moves.
import { jobInput } from '@hookwise/testing';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { BULLMQ_LAYOUT_VERSION } from '../../src/bullmq-layout';
import { connectionOf, useRedisFixture } from '../redis-fixture';

/** A job hash without what differs between two jobs (their data, times and id). */
function shape(hash: Record<string, string>): Record<string, unknown> {
  const { data, timestamp, opts, ...rest } = hash;
  const { jobId, ...parsedOpts } = JSON.parse(opts ?? '{}') as Record<string, unknown>;
  return { ...rest, opts: parsedOpts, data: typeof data, timestamp: /^\d+$/.test(timestamp ?? '') ? 'ms' : timestamp, jobId: typeof jobId };
}

/** The events bullmq's stream holds for one job, by name. */
async function eventsOf(client: Redis, prefix: string, jobId: string): Promise<string[]> {
  const entries = (await client.xrange(`${prefix}:jobs:events`, '-', '+')) as Array<[string, string[]]>;
  return entries.filter(([, fields]) => fields[fields.indexOf('jobId') + 1] === jobId).map(([, fields]) => fields[fields.indexOf('event') + 1] as string);
}

describe('the jobs the accept script writes are bullmq jobs (bullmq layout)', () => {
  const redis = useRedisFixture();

  it('is checked against the installed bullmq version', () => {
    expect((require('bullmq/package.json') as { version: string }).version).toBe(BULLMQ_LAYOUT_VERSION);
  });

  it.each([
    ['waiting', undefined],
    ['delayed', { key: 'pr-1', windowMs: 60_000, mode: 'latest' as const }],
  ])('writes a %s job as Queue.add does, and bullmq takes it in order', async (state, coalesce) => {
    const [store] = await redis.gateways(`layout-${state}`, 1);
    const client = connectionOf(store);
    const prefix = redis.prefix();
    const queue = new Queue('jobs', { connection: client, prefix });
    const retention = 7 * 24 * 3600;
    try {
      // The options this store's jobs always had (a delay only when the job is delayed).
      const delay = coalesce ? { delay: coalesce.windowMs } : {};
      const theirs = await queue.add(
        'event',
        { n: 1 },
        { jobId: 'added-by-bullmq', attempts: 1, removeOnComplete: { age: retention }, removeOnFail: false, ...delay },
      );
      const ours = await store.jobs.enqueue(jobInput({ receivedAt: Date.now(), ...(coalesce ? { coalesce } : {}) }));

      const [theirHash, ourHash] = await Promise.all([client.hgetall(`${prefix}:jobs:${theirs.id}`), client.hgetall(`${prefix}:jobs:${ours.id}`)]);
      const [ourShape, theirShape] = [shape(ourHash), shape(theirHash)];
      if (coalesce) {
        // Our delay runs from receivedAt (taken just before the enqueue) to the window's end: a millisecond may
        // pass between the two on a loaded machine. The rest of the hash must match bullmq's exactly.
        const ourOpts = ourShape.opts as { delay: number };
        expect(Number(ourShape.delay)).toBe(ourOpts.delay);
        expect(ourOpts.delay).toBeGreaterThan(coalesce.windowMs - 1000);
        expect(ourOpts.delay).toBeLessThanOrEqual(coalesce.windowMs);
        ourShape.delay = theirShape.delay;
        ourOpts.delay = (theirShape.opts as { delay: number }).delay;
      }
      expect(ourShape).toEqual(theirShape);
      expect(await queue.getJobState(ours.id)).toBe(state);
      expect(await eventsOf(client, prefix, ours.id)).toEqual(await eventsOf(client, prefix, String(theirs.id)));
      expect(await client.zrange(`${prefix}:jobs:marker`, 0, -1)).toEqual(coalesce ? ['1'] : ['0']);
      if (coalesce) {
        const [theirScore, ourScore] = await Promise.all([
          client.zscore(`${prefix}:jobs:delayed`, String(theirs.id)),
          client.zscore(`${prefix}:jobs:delayed`, ours.id),
        ]);
        // bullmq's score: the due time in ms times 0x1000, plus a sequence number within that ms.
        expect(Math.floor(Number(ourScore) / 0x1000)).toBe(ours.runAt);
        expect(Math.floor(Number(theirScore) / 0x1000)).toBeLessThanOrEqual(ours.runAt);
        await Promise.all([queue.getJob(String(theirs.id)).then((j) => j!.promote()), queue.getJob(ours.id).then((j) => j!.promote())]);
      }

      // bullmq's own worker takes both, the older first, with our data intact.
      const worker = new Worker('jobs', null, { connection: client, prefix, autorun: false });
      try {
        const first = await worker.getNextJob('token-1', { block: false });
        const second = await worker.getNextJob('token-2', { block: false });
        expect([first?.id, second?.id]).toEqual([theirs.id, ours.id]);
        expect(second?.data).toMatchObject({ deliveryId: ours.deliveryId, payload: ours.payload, route: ours.route });
        await second!.moveToCompleted({ ok: true }, 'token-2', false);
        expect(await queue.getJobState(ours.id)).toBe('completed');
      } finally {
        await worker.close(true);
      }
    } finally {
      await queue.close();
    }
  });
});
