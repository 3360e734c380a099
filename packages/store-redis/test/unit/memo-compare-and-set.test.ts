// MemoKV.compareAndSet on a real redis-server across gateways (beyond the store contract's one store): one write of
// many at once, the store's key prefix, and the MCP webhook subscriptions' index it keeps whole.
import type { RedisStore } from '../../src';
import type { RedisMemoKV } from '../../src/memos';
import { compareAndSetRace, subscribeAtOnce } from '../../../gateway/test/webhook-book-race';
import { sleep, useRedisFixture } from '../redis-fixture';

/** A Redis store always has memos (`Store.memos` is optional in core). */
const memosOf = (store: RedisStore): RedisMemoKV => store.memos as RedisMemoKV;

describe('Redis memos compareAndSet (real redis-server)', () => {
  const redis = useRedisFixture();

  it('of compareAndSets from two gateways with the same expected value exactly one writes, from a value and from none', async () => {
    const memos = (await redis.gateways('cas', 2)).map(memosOf);
    const fromValue = await compareAndSetRace(memos, 'k', 'v0', 25);
    expect(fromValue.wrote).toBe(1);
    expect(fromValue.value).toMatch(/^store[01]-\d+$/);
    expect((await compareAndSetRace(memos, 'fresh', undefined, 25)).wrote).toBe(1);
  });

  it('compares and writes under the store prefix: another prefix is another space; an expired key is absent', async () => {
    const a = memosOf((await redis.gateways('prefix-a', 1))[0]);
    const b = memosOf((await redis.gateways('prefix-b', 1))[0]);
    await a.set('k', 'a-value');
    expect(await b.compareAndSet('k', 'a-value', 'x')).toBe(false);
    expect(await b.compareAndSet('k', undefined, 'b-value', 100)).toBe(true);
    expect(await a.get('k')).toBe('a-value');
    expect(await b.get('k')).toBe('b-value');
    await sleep(250);
    expect(await b.compareAndSet('k', 'b-value', 'x')).toBe(false);
    expect(await b.compareAndSet('k', undefined, 'again')).toBe(true);
    expect(await b.get('k')).toBe('again');
  });

  it('two gateways each subscribing 50 webhooks at once: the index holds all 100, and both list them', async () => {
    const memos = (await redis.gateways('webhooks', 2)).map(memosOf);
    const { ids, listed } = await subscribeAtOnce(memos, 50);
    expect(ids).toHaveLength(100);
    expect(listed).toEqual([ids, ids]);
  });
});
