// Store contract cases: memos, plugins' memory across jobs. `Store.memos` is optional, newer than the
// contract's other parts, so a store without it (an older third-party store) has these cases skipped.
import assert from 'node:assert/strict';
import type { MemoKV } from '@hookwise/core';
import { sleep, type ContractKit, type StoreContractCase } from './store-contract-kit';

export function memoCases({ options, withStore }: ContractKit): StoreContractCase[] {
  // Whether a store has memos is known only once it is open, so a store without them passes these cases empty.
  const memoCase = (name: string, body: (memos: MemoKV) => Promise<void>): StoreContractCase =>
    withStore(`${name} (when the store has memos)`, async (store) => {
      if (store.memos) await body(store.memos);
    });
  const compareAndSetCase = (name: string, body: (memos: MemoKV, compareAndSet: NonNullable<MemoKV['compareAndSet']>) => Promise<void>): StoreContractCase => {
    if (options.memoCompareAndSet === false)
      return { name, skip: 'the store has no memos.compareAndSet (options.memoCompareAndSet: false)', run: async () => undefined };
    return memoCase(name, async (memos) => {
      assert.ok(
        memos.compareAndSet,
        'store.memos.compareAndSet is missing: implement it, or pass { memoCompareAndSet: false } to the contract to skip these cases',
      );
      await body(memos, memos.compareAndSet.bind(memos));
    });
  };
  return [
    ...compareAndSetCases(compareAndSetCase),
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

type CompareAndSetCase = (name: string, body: (memos: MemoKV, compareAndSet: NonNullable<MemoKV['compareAndSet']>) => Promise<void>) => StoreContractCase;

function compareAndSetCases(compareAndSetCase: CompareAndSetCase): StoreContractCase[] {
  return [
    compareAndSetCase('memos.compareAndSet: writes only over the expected value, undefined meaning absent; answers whether it wrote', async (memos, cas) => {
      assert.equal(await cas('cas', undefined, 'a'), true, 'absent, expected absent: written');
      assert.equal(await memos.get('cas'), 'a');
      assert.equal(await cas('cas', undefined, 'b'), false, 'present, expected absent: not written');
      assert.equal(await cas('cas', 'x', 'b'), false, 'another value expected: not written');
      assert.equal(await memos.get('cas'), 'a', 'a refused write changes nothing');
      assert.equal(await cas('cas', 'a', 'b'), true);
      assert.equal(await memos.get('cas'), 'b');
      assert.equal(await cas('never-set', 'b', 'c'), false, 'absent, a value expected: not written');
      assert.equal(await memos.get('never-set'), undefined);
      await memos.set('empty', '');
      assert.equal(await cas('empty', undefined, 'x'), false, 'an empty value is a value, not an absent key');
      assert.equal(await cas('empty', '', 'x'), true);
      await memos.delete('cas');
      assert.equal(await cas('cas', 'b', 'c'), false, 'a deleted key is absent');
      assert.equal(await cas('cas', undefined, 'c'), true);
      assert.equal(await memos.get('cas'), 'c');
    }),
    compareAndSetCase("memos.compareAndSet: an expired value counts as absent; its ttlMs works as set's", async (memos, cas) => {
      await memos.set('brief', 'a', 200);
      await memos.set('made-lasting', 'a', 200);
      await memos.set('kept', 'a');
      assert.equal(await cas('brief', undefined, 'x'), false, 'not expired yet: present');
      assert.equal(await cas('made-lasting', 'a', 'b'), true, 'written without ttlMs: the earlier expiry goes');
      assert.equal(await cas('kept', 'a', 'b', 200), true, 'written with ttlMs: forgotten after it');
      await sleep(450);
      assert.equal(await cas('brief', 'a', 'x'), false, 'expired: its old value is not there to compare with');
      assert.equal(await memos.get('made-lasting'), 'b');
      assert.equal(await memos.get('kept'), undefined);
      assert.equal(await cas('brief', undefined, 'c'), true, 'expired: written as if absent');
      assert.equal(await memos.get('brief'), 'c');
    }),
    compareAndSetCase('memos.compareAndSet: of concurrent calls with the same expected value exactly one writes', async (memos, cas) => {
      await memos.set('race', '0');
      const fromValue = await Promise.all(Array.from({ length: 20 }, (_, i) => cas('race', '0', `w${i}`)));
      assert.equal(fromValue.filter(Boolean).length, 1, 'one write over the expected value');
      assert.equal(await memos.get('race'), `w${fromValue.indexOf(true)}`, "the value is the winner's");
      const fromAbsent = await Promise.all(Array.from({ length: 20 }, (_, i) => cas('fresh', undefined, `w${i}`)));
      assert.equal(fromAbsent.filter(Boolean).length, 1, 'one write over an absent key');
      assert.equal(await memos.get('fresh'), `w${fromAbsent.indexOf(true)}`);
      // Read, add one, write conditionally, again on a refusal: concurrent increments all count.
      const increment = async (): Promise<void> => {
        for (let attempt = 0; attempt < 200; attempt += 1) {
          const seen = await memos.get('count');
          if (await cas('count', seen, String(Number(seen ?? '0') + 1))) return;
        }
        assert.fail('an increment lost 200 times');
      };
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let i = 0; i < 3; i += 1) await increment();
        }),
      );
      assert.equal(await memos.get('count'), '24');
    }),
  ];
}
