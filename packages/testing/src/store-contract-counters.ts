// Store contract cases: budget counters per key and fixed window; skipped for a store without them.
import assert from 'node:assert/strict';
import type { Store } from '@hookwise/core';
import { awayFromWindowEdge, same, sleep, type ContractKit, type StoreContractCase } from './store-contract-kit';

export function counterCases({ options, withStore }: ContractKit): StoreContractCase[] {
  const counterCase = (name: string, body: (counters: NonNullable<Store['counters']>) => Promise<void>): StoreContractCase => {
    if (options.counters === false) return { name, skip: 'the store has no counters (options.counters: false)', run: async () => undefined };
    return withStore(name, async (store) => {
      assert.ok(store.counters, 'store.counters is missing: implement WindowCounters, or pass { counters: false } to the contract to skip these cases');
      await body(store.counters);
    });
  };
  const HOUR_MS = 3_600_000;
  return [
    counterCase('counters: add returns the window total, 0 peeks, keys and window lengths count apart', async (counters) => {
      await awayFromWindowEdge(HOUR_MS, 5_000);
      assert.equal(await counters.add('runs:ci', 0, HOUR_MS), 0, 'an unused counter is 0');
      assert.equal(await counters.add('runs:ci', 1, HOUR_MS), 1);
      assert.equal(await counters.add('runs:ci', 1, HOUR_MS), 2);
      assert.equal(await counters.add('runs:ci', 0, HOUR_MS), 2, 'adding 0 peeks');
      assert.equal(await counters.add('tokens:ci', 1_500, HOUR_MS), 1_500);
      assert.equal(await counters.add('tokens:ci', 250, HOUR_MS), 1_750);
      assert.equal(await counters.add('runs:other', 1, HOUR_MS), 1);
      assert.equal(await counters.add('runs:ci', 1, 24 * HOUR_MS), 1, 'the same key counted per day is another counter');
      assert.equal(await counters.add('runs:ci', 0, HOUR_MS), 2);
    }),
    counterCase('counters: a window starts at a multiple of its length since the epoch; the next one starts from 0', async (counters) => {
      const windowMs = 1_000;
      await awayFromWindowEdge(windowMs, 150);
      assert.equal(await counters.add('w', 3, windowMs), 3);
      assert.equal(await counters.add('w', 2, windowMs), 5);
      const now = Date.now();
      await sleep(now - (now % windowMs) + windowMs + 150 - now);
      assert.equal(await counters.add('w', 0, windowMs), 0, 'a new window');
      assert.equal(await counters.add('w', 1, windowMs), 1);
    }),
    counterCase('counters: concurrent adds are never lost', async (counters) => {
      await awayFromWindowEdge(HOUR_MS, 5_000);
      const totals = await Promise.all(Array.from({ length: 20 }, () => counters.add('burst', 1, HOUR_MS)));
      same(
        [...totals].sort((x, y) => x - y),
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      assert.equal(await counters.add('burst', 0, HOUR_MS), 20);
    }),
  ];
}
