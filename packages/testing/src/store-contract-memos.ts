// Store contract cases: memos, plugins' memory across jobs. `Store.memos` is optional, newer than the
// contract's other parts, so a store without it (an older third-party store) has these cases skipped.
import assert from 'node:assert/strict';
import type { MemoKV } from '@hookwise/core';
import { sleep, type ContractKit, type StoreContractCase } from './store-contract-kit';

export function memoCases({ withStore }: ContractKit): StoreContractCase[] {
  // Whether a store has memos is known only once it is open, so a store without them passes these cases empty.
  const memoCase = (name: string, body: (memos: MemoKV) => Promise<void>): StoreContractCase =>
    withStore(`${name} (when the store has memos)`, async (store) => {
      if (store.memos) await body(store.memos);
    });
  return [
    memoCase('memos: set, get, overwrite and delete; keys are exact, values come back as written', async (memos) => {
      assert.equal(await memos.get('github_comment:sticky:octo/repo#7'), undefined, 'an unknown key is undefined');
      await memos.set('github_comment:sticky:octo/repo#7', '1001');
      await memos.set('github_comment:sticky:octo/repo#70', 'other');
      assert.equal(await memos.get('github_comment:sticky:octo/repo#7'), '1001');
      assert.equal(await memos.get('github_comment:sticky:octo/repo#'), undefined, 'no prefix match');
      await memos.set('github_comment:sticky:octo/repo#7', '2002');
      assert.equal(await memos.get('github_comment:sticky:octo/repo#7'), '2002', 'a set replaces the value');
      const odd = 'k:{"a":1} \u00e9\u4e2d\ud83d\ude00 %s *?[';
      const value = JSON.stringify({ id: 3003, text: 'line\nbreak \u00e9\ud83d\ude00' });
      await memos.set(odd, value);
      assert.equal(await memos.get(odd), value, 'any key and value text round-trips');
      await memos.set('empty', '');
      assert.equal(await memos.get('empty'), '', 'an empty value is a value, not a missing key');
      await memos.delete('github_comment:sticky:octo/repo#7');
      assert.equal(await memos.get('github_comment:sticky:octo/repo#7'), undefined);
      assert.equal(await memos.get('github_comment:sticky:octo/repo#70'), 'other', 'delete removes only its key');
      await memos.delete('never-set');
    }),
    memoCase('memos: an entry with a TTL is forgotten after it; one without is kept, also when rewritten without', async (memos) => {
      await memos.set('brief', 'a', 200);
      await memos.set('kept', 'b');
      await memos.set('was-brief', 'c', 200);
      await memos.set('was-brief', 'd');
      await memos.set('extended', 'e', 200);
      await memos.set('extended', 'f', 60_000);
      assert.equal(await memos.get('brief'), 'a', 'still there before its TTL');
      await sleep(450);
      assert.equal(await memos.get('brief'), undefined, 'forgotten after its TTL');
      assert.equal(await memos.get('kept'), 'b');
      assert.equal(await memos.get('was-brief'), 'd', 'rewritten without a TTL: kept');
      assert.equal(await memos.get('extended'), 'f', 'rewritten with a longer TTL: kept');
    }),
    memoCase('memos: concurrent sets of distinct keys are all kept', async (memos) => {
      await Promise.all(Array.from({ length: 20 }, (_, i) => memos.set(`burst:${i}`, String(i))));
      const values = await Promise.all(Array.from({ length: 20 }, (_, i) => memos.get(`burst:${i}`)));
      assert.deepEqual(
        values,
        Array.from({ length: 20 }, (_, i) => String(i)),
      );
    }),
  ];
}
