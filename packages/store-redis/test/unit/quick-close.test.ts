// A store closed the moment it opened: bullmq's queue is still starting on the shared connection (its version
// check), sees the connection closed under it and emits 'error'. Unheard, that error was thrown as "Unhandled
// error. (Error: Connection is closed.)" into whatever ran next in the process.
import { startRedisServer, type RunningRedis } from '@hookwise/testing';
import { openRedisStore } from '../../src';

let redis: RunningRedis;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(() => redis.stop());

it('opens and closes at once, many times, without an unhandled bullmq error', async () => {
  const unhandled: unknown[] = [];
  const onError = (err: unknown) => unhandled.push(err);
  process.on('uncaughtException', onError);
  try {
    for (let i = 0; i < 20; i += 1) {
      const store = await openRedisStore({ url: redis.url, prefix: `quick-${i}` });
      // A job lease starts the worker too, so both of bullmq's halves are starting when the store closes.
      void store.jobs.lease('gw', 1000).catch(() => undefined);
      await store.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    process.off('uncaughtException', onError);
  }
  expect(unhandled).toEqual([]);
});
