// The memory store (the built-in plugin's `memory` contribution) against the store contract.
import { createMemoryStore } from '@hookwise/gateway';
import { describeStoreContract, storeContractCases } from '../../src/store-contract';

describeStoreContract('memory', async () => createMemoryStore());

describe('store contract options', () => {
  it('marks the counter cases skipped, with the reason, for a store declared without counters', () => {
    const cases = storeContractCases({ open: async () => createMemoryStore(), counters: false });
    const counterCases = cases.filter((c) => c.name.startsWith('counters:'));
    expect(counterCases.length).toBeGreaterThan(0);
    for (const c of counterCases) expect(c.skip).toMatch(/no counters/);
    expect(cases.filter((c) => c.skip)).toEqual(counterCases);
  });

  it('fails the counter cases of a store that has no counters but did not say so', async () => {
    const [first] = storeContractCases({ open: async () => ({ ...createMemoryStore(), counters: undefined }) }).filter((c) => c.name.startsWith('counters:'));
    await expect(first?.run()).rejects.toThrow(/store.counters is missing/);
  });
});
