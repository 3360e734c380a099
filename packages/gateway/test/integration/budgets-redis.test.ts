// Budgets and endings on a real redis-server: the counters live in Redis, so a route's runs counted by one gateway
// count for the next one on the same Redis (another process, or this one after a restart).
import { startRedisServer, type RunningRedis, type TestGateway } from '@hookwise/testing';
import { awayFromHourEnd, isDone, recorded, send, startWorkerGateway, until } from './worker-gateway';

let redis: RunningRedis;
let gw: TestGateway | undefined;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(() => redis.stop());
beforeEach(() => awayFromHourEnd(), 30_000);
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

describe('budgets and endings on the Redis store', () => {
  it('shares runs_per_hour between gateways on one Redis: the third run, on the second gateway, is skipped', async () => {
    const store = { backend: 'redis', url: redis.url, prefix: 'budget-shared' };
    const routes = { review: { budget: { runs_per_hour: 2, when_exceeded: 'skip' } } };
    gw = await startWorkerGateway(store, routes);
    await send(gw, 'review', 'shared-1', { answer: 'first' });
    await send(gw, 'review', 'shared-2', { answer: 'second' });
    await until(gw, 'shared-1', isDone);
    await until(gw, 'shared-2', isDone);
    expect(recorded(gw)).toHaveLength(2);
    await gw.stop();
    gw = await startWorkerGateway(store, routes);
    await send(gw, 'review', 'shared-3', { answer: 'third' });
    expect(await until(gw, 'shared-3', isDone)).toMatchObject({
      status: 'done',
      outcome: 'skipped',
      note: 'route budget runs_per_hour (2) spent; skipped without an agent run',
    });
    expect(recorded(gw)).toEqual([]);
  });

  it('stores a silent job with its answer and usage and delivers nothing', async () => {
    gw = await startWorkerGateway({ backend: 'redis', url: redis.url, prefix: 'silent' }, { review: {} });
    await send(gw, 'review', 'quiet-1', { answer: '[SILENT]', usage: { inputTokens: 21, outputTokens: 2 } });
    expect(await until(gw, 'quiet-1', isDone)).toMatchObject({ outcome: 'silent', answer: '[SILENT]', usage: { inputTokens: 21, outputTokens: 2 } });
    expect(recorded(gw)).toEqual([]);
  });
});
