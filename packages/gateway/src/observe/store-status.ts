// Whether the store works, as /health reports it: kept in memory from the outcomes of the store calls the
// gateway makes anyway (accepts, leases) and the store's own health(), so /health never waits on the store.
import type { Store, StoreHealth } from '@hookwise/core';

/** Where a store call failed: the request path (accept) or the workers (lease). */
export type StoreCallSite = 'accept' | 'lease';

export class StoreStatus {
  private readonly failures = new Map<StoreCallSite, string>();

  constructor(private readonly store: Store) {}

  failed(site: StoreCallSite, reason: string): void {
    this.failures.set(site, reason);
  }

  succeeded(site: StoreCallSite): void {
    if (this.failures.size) this.failures.delete(site);
  }

  /** The store's own view first (it knows why), then the last failure of a call that has not worked since. */
  health(): StoreHealth {
    let own: StoreHealth | undefined;
    try {
      own = this.store.health?.();
    } catch (err) {
      own = { ok: false, reason: `the store could not report its health: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (own && !own.ok) return { ok: false, reason: own.reason ?? 'the store reports a problem' };
    const [site, reason] = [...this.failures][0] ?? [];
    if (site === undefined) return { ok: true };
    return { ok: false, reason: `the store failed (${site === 'accept' ? 'storing an event' : 'leasing a job'}): ${reason}` };
  }
}
