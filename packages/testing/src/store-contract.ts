// Contract tests for Store backends (delivery ids, rate windows, job queue, per-destination state, progress): framework-neutral cases (node:assert),
// and describeStoreContract, which runs them as jest tests. The cases live in one module per group beside this one.
/// <reference types="jest" />
import type { Store } from '@hookwise/core';
import { acceptCases, claimCases } from './store-contract-claims';
import { coalescingCases } from './store-contract-coalescing';
import { concurrencyCases } from './store-contract-concurrency';
import { counterCases } from './store-contract-counters';
import { destinationCases } from './store-contract-destinations';
import { endingCases } from './store-contract-endings';
import { jobQueueCases, wakeCases } from './store-contract-jobs';
import { makeDueCases } from './store-contract-make-due';
import { memoCases } from './store-contract-memos';
import { outboxCases } from './store-contract-outbox';
import { retentionCases } from './store-contract-retention';
import { contractKit, type StoreContractCase, type StoreContractOptions } from './store-contract-kit';

export { jobInput, type StoreContractCase, type StoreContractOptions } from './store-contract-kit';

/**
 * Every case a Store backend must pass. Run them with your test framework: `for (const c of cases) it(c.name, c.run)`,
 * and a case with `skip` set as skipped (it does not apply to the store, e.g. counters with `counters: false`).
 *
 * Decisions the cases pin down beyond core's doc comments (stores/types.ts):
 * - coalescing: a job takes events only until it is first leased. A job handed back by a shutdown (attempts 0
 *   again) never takes more: its interrupted run may have seen its events, and a store needs no more than a
 *   "was leased" mark to decide (no look at attempts or step).
 * - a hold's note stays on the job while it waits and is cleared when the job is leased again; an ending's note
 *   stays on the done job.
 * - concurrency keys: an expired lease blocks nothing, and an expired job is not taken over while another job of
 *   its key runs under a live lease.
 * - counters: a counter is (key, window length); a peek (0) at an unused counter answers 0.
 */
export function storeContractCases(options: StoreContractOptions): StoreContractCase[] {
  const kit = contractKit(options);
  return [
    ...claimCases(kit),
    ...jobQueueCases(kit),
    ...acceptCases(kit),
    ...destinationCases(kit),
    ...wakeCases(kit),
    ...endingCases(kit),
    ...makeDueCases(kit),
    ...coalescingCases(kit),
    ...concurrencyCases(kit),
    ...counterCases(kit),
    ...memoCases(kit),
    ...outboxCases(kit),
    ...retentionCases(kit),
  ];
}

/**
 * Jest: every contract case as an `it` in one `describe`, e.g. `describeStoreContract('my-store', () => openMyStore())`.
 * Each case gets a fresh, empty store from `open` and closes it. A store package should pass this before it is
 * named by `store.backend`.
 */
export function describeStoreContract(name: string, open: () => Promise<Store>, options: Omit<StoreContractOptions, 'open'> = {}): void {
  // Cases that wait for a lease to be taken over may take up to takeoverWithinMs, beyond jest's default 5 s.
  const timeoutMs = (options.takeoverWithinMs ?? 10_000) + 20_000;
  describe(`${name}: store contract`, () => {
    for (const c of storeContractCases({ ...options, open })) {
      if (c.skip) it.skip(`${c.name} (skipped: ${c.skip})`, c.run);
      else it(c.name, c.run, timeoutMs);
    }
  });
}
