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

describe('store contract options: memoCompareAndSet', () => {
  it('marks the compareAndSet cases skipped for a store declared without it, and only those', () => {
    const cases = storeContractCases({ open: async () => createMemoryStore(), memoCompareAndSet: false });
    const skipped = cases.filter((c) => c.skip);
    expect(skipped.length).toBeGreaterThanOrEqual(3);
    for (const c of skipped) {
      expect(c.name).toMatch(/^memos\.compareAndSet/);
      expect(c.skip).toMatch(/no memos\.compareAndSet/);
    }
  });

  it('fails the compareAndSet cases of a store whose memos have none but did not say so; passes them for a store without memos', async () => {
    const withoutCas = async () => {
      const store = createMemoryStore();
      const { get, set, delete: remove } = store.memos!;
      return { ...store, memos: { get: get.bind(store.memos), set: set.bind(store.memos), delete: remove.bind(store.memos) } };
    };
    const [first] = storeContractCases({ open: withoutCas }).filter((c) => c.name.startsWith('memos.compareAndSet'));
    await expect(first?.run()).rejects.toThrow(/store.memos.compareAndSet is missing/);
    const [none] = storeContractCases({ open: async () => ({ ...createMemoryStore(), memos: undefined }) }).filter((c) =>
      c.name.startsWith('memos.compareAndSet'),
    );
    await expect(none?.run()).resolves.toBeUndefined();
  });
});
