// MemoKV.compareAndSet on one SQLite file opened by two stores (two gateways, or a gateway and the CLI), beyond the
// store contract's one store: one write of many at once, expiry, and the MCP webhook subscriptions' index it keeps whole.
import { compareAndSetRace, subscribeAtOnce } from '../../../gateway/test/webhook-book-race';
import { sqliteStoresPerTest } from '../sqlite-temp-dir';

describe('SQLite memos compareAndSet on one file', () => {
  const tmp = sqliteStoresPerTest('hookwise-sqlite-cas-');

  it('of compareAndSets from two stores on the file with the same expected value exactly one writes, from a value and from none', async () => {
    const memos = [tmp.open(), tmp.open()].map((store) => store.memos);
    const fromValue = await compareAndSetRace(memos, 'k', 'v0', 25);
    expect(fromValue.wrote).toBe(1);
    expect(fromValue.value).toMatch(/^store[01]-\d+$/);
    expect((await compareAndSetRace(memos, 'fresh', undefined, 25)).wrote).toBe(1);
  });

  it('an expired row counts as absent, also before the purge removes it', async () => {
    let clock = 1_000_000;
    const [a, b] = [tmp.open({ now: () => clock }), tmp.open({ now: () => clock })];
    await a.memos.set('k', 'brief', 1_000);
    expect(await b.memos.compareAndSet('k', undefined, 'x')).toBe(false);
    clock += 1_001;
    expect(await b.memos.compareAndSet('k', 'brief', 'x')).toBe(false);
    expect(await b.memos.compareAndSet('k', undefined, 'again', 1_000)).toBe(true);
    expect(await a.memos.get('k')).toBe('again');
    clock += 1_001;
    expect(await a.memos.get('k')).toBeUndefined();
  });

  it('two gateways on the file each subscribing 50 webhooks at once: the index holds all 100, and both list them', async () => {
    const memos = [tmp.open(), tmp.open()].map((store) => store.memos);
    const { ids, listed } = await subscribeAtOnce(memos, 50);
    expect(ids).toHaveLength(100);
    expect(listed).toEqual([ids, ids]);
  });
});
