// list() reads every state in one snapshot: jobs that move between states while it reads (a worker completing
// them, a retry putting them back to pending) are each listed once, in the state they had at that moment, and
// none is missed. It read the states one after another, so a job completed between the read of `running` and
// the read of `done` came twice, and one sent back to pending after `pending` was read came not at all: an MCP
// Events poll, which reads the store's jobs in order, then handed out the same event twice or skipped one.

import { jobInput } from '@hookwise/testing';
import { useRedisFixture } from '../redis-fixture';

describe('Redis store list()', () => {
  const redis = useRedisFixture();

  it('lists each job once and misses none while a worker completes some and sends others back to retry', async () => {
    const [store] = await redis.gateways('snapshot', 1);
    const JOBS = 60;
    const ids = new Set<string>();
    for (let i = 0; i < JOBS; i++) ids.add((await store.jobs.enqueue(jobInput({ deliveryId: `snap-${i}` }))).id);

    let working = true;
    const worker = (async () => {
      let n = 0;
      while (working) {
        const job = await store.jobs.lease('worker', 30_000);
        if (!job) continue;
        // Every third one goes back to pending (a retry due now), the others end.
        if (n++ % 3 === 0)
          await store.jobs.fail(job.id, { at: Date.now(), step: 'agent', attempt: job.attempts, message: 'again', retryable: true }, Date.now());
        else await store.jobs.complete(job.id, { ok: true });
      }
    })();

    const problems: string[] = [];
    for (let round = 0; round < 40; round++) {
      const listed = (await store.jobs.list()).map((job) => job.id);
      const unique = new Set(listed);
      if (unique.size !== listed.length) problems.push(`round ${round}: ${listed.length - unique.size} listed twice`);
      const missing = [...ids].filter((id) => !unique.has(id));
      if (missing.length) problems.push(`round ${round}: ${missing.length} missing`);
    }
    working = false;
    await worker;
    expect(problems).toEqual([]);
  }, 60_000);
});
