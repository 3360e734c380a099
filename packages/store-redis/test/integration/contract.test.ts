import { startRedisServer, storeContractCases, type RunningRedis } from '@hookwise/testing';
import { openRedisStore } from '../../src';

describe('Redis store contract (real redis-server)', () => {
  let redis: RunningRedis;
  let n = 0;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  const cases = storeContractCases({
    // A prefix per case: each case sees an empty store.
    open: () => openRedisStore({ url: redis.url, prefix: `contract-${(n += 1)}`, stalledIntervalMs: 200 }),
    shortLeaseMs: 300,
  });
  for (const c of cases) it(c.name, c.run);
});
