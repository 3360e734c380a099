// The store contract's shared parts: its options and case type, job inputs, and the helpers every group of cases
// uses (a fresh store per case, a lease that must succeed, waiting for an answer).
import assert from 'node:assert/strict';
import { SequentialAcceptor } from '@hookwise/gateway';
import type { AcceptOutcome, AcceptRequest, Job, JobError, JobInput, Store } from '@hookwise/core';

export interface StoreContractCase {
  name: string;
  run(): Promise<void>;
  /** Set on a case that does not apply to this store (why, for people): run it as skipped (`it.skip`), not as passed. */
  skip?: string;
}

export interface StoreContractOptions {
  /** Opens a fresh, empty store; each case closes the store it opened. */
  open(): Promise<Store>;
  /** A lease short enough to wait out (default 300 ms). Backends that detect expiry by polling may need more. */
  shortLeaseMs?: number;
  /** How long to wait for an expired lease to be taken over (default 10 s). */
  takeoverWithinMs?: number;
  /**
   * `false` for a store without `Store.counters` (it is optional: the gateway then counts budgets per process):
   * the counter cases are then marked skipped with that reason. Memory, SQLite and Redis have counters; a store
   * that leaves this unset must have them, and fails those cases if it does not.
   */
  counters?: boolean;
  /**
   * `false` for a store without `JobQueue.makeDue` (it is optional: without it a held job waits for its runAt): the
   * makeDue cases are then marked skipped. Memory, SQLite and Redis have it; a store that leaves this unset must too.
   */
  makeDue?: boolean;
  /**
   * `false` for a store whose memos have no `MemoKV.compareAndSet` (it is optional: without it a read, change and
   * write back of one memo can lose another gateway's write): those cases are then marked skipped. Memory, SQLite
   * and Redis have it; a store with memos that leaves this unset must too. A store without memos passes them empty.
   */
  memoCompareAndSet?: boolean;
}

let counter = 0;
/** A job input with a unique delivery id. */
export function jobInput(overrides: Partial<JobInput> = {}): JobInput {
  counter += 1;
  return {
    route: 'ci',
    event: 'push',
    deliveryId: `d-${process.pid}-${counter}`,
    payload: { n: counter, nested: { ok: true } },
    receivedAt: Date.now(),
    ...overrides,
  };
}

/** Values normalised to this realm: stores may hand back structured clones whose prototypes differ (jest vm). */
export const plain = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));
export const same = (actual: unknown, expected: unknown, message?: string): void => assert.deepEqual(plain(actual), expected, message);

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The store's own atomic accept, or the sequential one the pipeline uses for stores without it. */
export function acceptorOf(store: Store): (request: AcceptRequest) => Promise<AcceptOutcome> {
  if (store.accept) return store.accept.bind(store);
  const acceptor = new SequentialAcceptor(store);
  return (request) => acceptor.accept(request);
}

/** An accept request for a new job (or, with `job: undefined`, for an event the route's filter ignores). */
export function acceptRequest(overrides: Partial<AcceptRequest> = {}): AcceptRequest {
  const job = jobInput({ route: overrides.route ?? 'ci', ...(overrides.deliveryId ? { deliveryId: overrides.deliveryId } : {}) });
  return { route: job.route, deliveryId: job.deliveryId, rateLimit: 100, maxPending: 100, job, ...overrides };
}

export async function eventually<T>(what: string, withinMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
    await sleep(50);
  }
}

/** What the groups of cases share: the options, and helpers bound to them. */
export interface ContractKit {
  options: StoreContractOptions;
  /** A lease short enough to wait out. */
  shortLease: number;
  /** How long to wait for a lease to be taken over, or anything else a store does in the background. */
  takeover: number;
  /** A case that runs `body` on a fresh store and closes it. */
  withStore(name: string, body: (store: Store) => Promise<void>): StoreContractCase;
  /** Leases a job; fails the case when there is none. */
  leaseOne(store: Store, owner?: string, leaseMs?: number): Promise<Job>;
  /** A job input that coalesces under `key`. */
  coalescing(key: string, mode: 'latest' | 'all', overrides?: Partial<JobInput>, windowMs?: number): JobInput;
  /** A retryable agent failure. */
  failure(message: string): JobError;
}

export function contractKit(options: StoreContractOptions): ContractKit {
  const shortLease = options.shortLeaseMs ?? 300;
  const takeover = options.takeoverWithinMs ?? 10_000;
  const withStore = (name: string, body: (store: Store) => Promise<void>): StoreContractCase => ({
    name,
    async run() {
      const store = await options.open();
      try {
        await body(store);
      } finally {
        await store.close();
      }
    },
  });
  const leaseOne = async (store: Store, owner = 'owner-a', leaseMs = 30_000): Promise<Job> => {
    const job = await store.jobs.lease(owner, leaseMs);
    assert.ok(job, 'expected a job to lease');
    return job;
  };

  const coalescing = (key: string, mode: 'latest' | 'all', overrides: Partial<JobInput> = {}, windowMs = 60_000): JobInput =>
    jobInput({ coalesce: { key, windowMs, mode }, ...overrides });
  const failure = (message: string): JobError => ({ at: Date.now(), step: 'agent', attempt: 1, message, retryable: true });
  return { options, shortLease, takeover, withStore, leaseOne, coalescing, failure };
}

/** Waits, if need be, until the current fixed window of `windowMs` has begun and has not ended `marginMs` either side of now. */
export async function awayFromWindowEdge(windowMs: number, marginMs: number): Promise<void> {
  const into = Date.now() % windowMs;
  if (into >= marginMs && into <= windowMs - marginMs) return;
  await sleep((into < marginMs ? marginMs - into : windowMs - into + marginMs) + 1);
}
