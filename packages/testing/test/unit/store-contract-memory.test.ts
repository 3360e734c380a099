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

describe('store contract options: makeDue', () => {
  it('marks the makeDue cases skipped for a store declared without makeDue', () => {
    const cases = storeContractCases({ open: async () => createMemoryStore(), makeDue: false });
    const makeDueCases = cases.filter((c) => c.name.startsWith('makeDue'));
    expect(makeDueCases.length).toBeGreaterThanOrEqual(4);
    for (const c of makeDueCases) expect(c.skip).toMatch(/no makeDue/);
  });

  it('fails the makeDue cases of a store whose queue has no makeDue but did not say so', async () => {
    const open = async () => {
      const store = createMemoryStore();
      return { ...store, jobs: Object.assign(Object.create(store.jobs) as typeof store.jobs, { makeDue: undefined }) };
    };
    const [first] = storeContractCases({ open }).filter((c) => c.name.startsWith('makeDue'));
    await expect(first?.run()).rejects.toThrow(/store.jobs.makeDue is missing/);
  });
});
