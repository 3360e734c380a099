// WebhookBook's index of subscription ids: changed by a read, an edit and a conditional write (MemoKV.compareAndSet),
// read again when another gateway wrote meanwhile; a book's own concurrent changes are applied together, so none is
// lost also on a store without compareAndSet. Two gateways on stores that share memos: see the SQLite and Redis tests.
import type { MemoKV } from '@hookwise/core';
import { INDEX_WRITE_ATTEMPTS, WebhookBook } from '../../src/mcp-events/webhook-book';
import { MemoryMemoKV } from '../../src/stores/memory-memos';
import { subscribeAtOnce, webhookSubscription } from '../webhook-book-race';

const INDEX = 'mcp-events:webhooks';

/** Memos as a third-party store without compareAndSet has them. */
function plainMemos(memos: MemoryMemoKV): MemoKV {
  return { get: (k) => memos.get(k), set: (k, v, ttl) => memos.set(k, v, ttl), delete: (k) => memos.delete(k) };
}

/** Memos whose first `times` compareAndSets of the index find it rewritten just before (another gateway's write). */
function interleaved(memos: MemoryMemoKV, times: number, write: (ids: string[]) => string[]): MemoKV & { calls: number } {
  const spy = {
    calls: 0,
    get: (k: string) => memos.get(k),
    set: (k: string, v: string, ttl?: number) => memos.set(k, v, ttl),
    delete: (k: string) => memos.delete(k),
    async compareAndSet(k: string, expected: string | undefined, v: string, ttl?: number) {
      spy.calls += 1;
      if (k === INDEX && spy.calls <= times) await memos.set(INDEX, JSON.stringify(write(JSON.parse((await memos.get(INDEX)) ?? '[]') as string[])));
      return memos.compareAndSet(k, expected, v, ttl);
    },
  };
  return spy;
}

const index = async (memos: MemoKV): Promise<string[]> => JSON.parse((await memos.get(INDEX)) ?? '[]') as string[];

describe('WebhookBook index', () => {
  it('keeps every id of 50 subscriptions put at once by one book', async () => {
    const { ids, listed } = await subscribeAtOnce([new MemoryMemoKV()], 50);
    expect(listed).toEqual([ids]);
  });

  it('keeps every id of 50 put at once on a store without compareAndSet (a gateway writes its changes one after another)', async () => {
    const { ids, listed } = await subscribeAtOnce([plainMemos(new MemoryMemoKV())], 50);
    expect(listed).toEqual([ids]);
  });

  it('two books on shared memos, 50 each at once: all 100 are kept', async () => {
    const memos = new MemoryMemoKV();
    const { ids, listed } = await subscribeAtOnce([memos, memos], 50);
    expect(ids).toHaveLength(100);
    expect(listed).toEqual([ids, ids]);
  });

  it('remember, remove and the prune in all() read again and keep what another gateway wrote meanwhile', async () => {
    const memos = new MemoryMemoKV();
    const other = interleaved(memos, 2, (ids) => [...ids, `other_${ids.length}`]);
    const book = new WebhookBook(other);
    await book.put(webhookSubscription('mine'));
    expect(await index(memos)).toEqual(['other_0', 'other_1', 'mine']);
    expect(other.calls).toBe(3);

    const removing = interleaved(memos, 1, (ids) => [...ids, 'late']);
    await new WebhookBook(removing).remove('other_0');
    expect(await index(memos)).toEqual(['other_1', 'mine', 'late']);

    // other_1 and late have no subscription memo: the prune drops them and keeps one remembered meanwhile.
    await memos.set('mcp-events:webhook:added', JSON.stringify(webhookSubscription('added')));
    const pruning = interleaved(memos, 1, (ids) => [...ids, 'added']);
    expect((await new WebhookBook(pruning).all()).map((s) => s.id)).toEqual(['mine']);
    expect(await index(memos)).toEqual(['mine', 'added']);
  });

  it(`gives up after ${INDEX_WRITE_ATTEMPTS} lost writes: put fails retryable, all() still answers and leaves the prune to the next read`, async () => {
    const memos = new MemoryMemoKV();
    const busy = interleaved(memos, Infinity, (ids) => [...ids, `other_${ids.length}`]);
    const book = new WebhookBook(busy);
    await expect(book.put(webhookSubscription('mine'))).rejects.toMatchObject({ code: 'HW_E_STORE', retryable: true });
    expect(busy.calls).toBe(INDEX_WRITE_ATTEMPTS);
    expect(await index(memos)).not.toContain('mine');
    busy.calls = 0;
    // The index holds only the other gateway's ids, none with a subscription: all() answers none, its prune lost.
    expect(await book.all()).toEqual([]);
    expect(busy.calls).toBe(INDEX_WRITE_ATTEMPTS);
  });
});
