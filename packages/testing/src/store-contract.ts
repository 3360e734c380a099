// Contract tests for Store backends (delivery ids, rate windows, job queue, per-destination state, progress): framework-neutral cases (node:assert),
// and describeStoreContract, which runs them as jest tests.
/// <reference types="jest" />
import assert from 'node:assert/strict';
import { SequentialAcceptor } from '@hookwise/gateway';
import { type AcceptOutcome, type AcceptRequest, type DestinationState, type Job, type JobError, type JobInput, type Store } from '@hookwise/core';

export interface StoreContractCase {
  name: string;
  run(): Promise<void>;
}

export interface StoreContractOptions {
  /** Opens a fresh, empty store; each case closes the store it opened. */
  open(): Promise<Store>;
  /** A lease short enough to wait out (default 300 ms). Backends that detect expiry by polling may need more. */
  shortLeaseMs?: number;
  /** How long to wait for an expired lease to be taken over (default 10 s). */
  takeoverWithinMs?: number;
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
const plain = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));
const same = (actual: unknown, expected: unknown, message?: string): void => assert.deepEqual(plain(actual), expected, message);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The store's own atomic accept, or the sequential one the pipeline uses for stores without it. */
function acceptorOf(store: Store): (request: AcceptRequest) => Promise<AcceptOutcome> {
  if (store.accept) return store.accept.bind(store);
  const acceptor = new SequentialAcceptor(store);
  return (request) => acceptor.accept(request);
}

/** An accept request for a new job (or, with `job: undefined`, for an event the route's filter ignores). */
function acceptRequest(overrides: Partial<AcceptRequest> = {}): AcceptRequest {
  const job = jobInput({ route: overrides.route ?? 'ci', ...(overrides.deliveryId ? { deliveryId: overrides.deliveryId } : {}) });
  return { route: job.route, deliveryId: job.deliveryId, rateLimit: 100, maxPending: 100, job, ...overrides };
}

async function eventually<T>(what: string, withinMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
    await sleep(50);
  }
}

/** Every case a Store backend must pass. Run them with your test framework: `for (const c of cases) it(c.name, c.run)`. */
export function storeContractCases(options: StoreContractOptions): StoreContractCase[] {
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

  return [
    withStore('claims a delivery id once per route and again after release', async ({ deliveryIds }) => {
      assert.equal(await deliveryIds.claim('ci', 'abc'), true);
      assert.equal(await deliveryIds.claim('ci', 'abc'), false);
      assert.equal(await deliveryIds.claim('other', 'abc'), true);
      await deliveryIds.release('ci', 'abc');
      assert.equal(await deliveryIds.claim('ci', 'abc'), true);
    }),
    withStore('lets exactly one of many concurrent claims of one id win', async ({ deliveryIds }) => {
      const results = await Promise.all(Array.from({ length: 20 }, () => deliveryIds.claim('ci', 'race')));
      assert.equal(results.filter(Boolean).length, 1);
    }),
    withStore('counts rate-limit hits up to the limit; check only peeks', async ({ rateLimiter }) => {
      for (let i = 0; i < 5; i += 1) assert.equal((await rateLimiter.check('ci', 3)).allowed, true);
      const hits = [];
      for (let i = 0; i < 4; i += 1) hits.push(await rateLimiter.hit('ci', 3));
      same(
        hits.map((h) => h.allowed),
        [true, true, true, false],
      );
      const window = await rateLimiter.check('ci', 3);
      assert.equal(window.allowed, false);
      assert.ok(window.retryAfterSeconds >= 1 && window.retryAfterSeconds <= 60, `retryAfterSeconds ${window.retryAfterSeconds}`);
      assert.equal((await rateLimiter.check('other', 3)).allowed, true);
    }),
    withStore('never lets concurrent hits exceed the limit', async ({ rateLimiter }) => {
      const hits = await Promise.all(Array.from({ length: 25 }, () => rateLimiter.hit('burst', 10)));
      assert.equal(hits.filter((h) => h.allowed).length, 10);
    }),
    withStore('enqueues a pending job that keeps its payload', async ({ jobs }) => {
      const input = jobInput({ payload: { title: 'héllo', list: [1, 2, { x: null }] } });
      const job = await jobs.enqueue(input);
      assert.equal(job.status, 'pending');
      assert.equal(job.step, 'agent');
      assert.equal(job.attempts, 0);
      same(job.errors, []);
      const stored = await jobs.get(job.id);
      same(stored?.payload, input.payload);
      assert.equal(stored?.deliveryId, input.deliveryId);
      assert.equal((await jobs.findByDeliveryId(input.deliveryId))?.id, job.id);
      assert.equal(await jobs.pendingCount(), 1);
      assert.equal(await jobs.get('no-such-job'), undefined);
    }),
    withStore('leases a job to one owner at a time', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      const leased = await leaseOne(store);
      assert.equal(leased.id, job.id);
      assert.equal(leased.status, 'running');
      assert.equal(leased.attempts, 1);
      assert.equal(await jobs.lease('owner-b', 30_000), undefined);
      assert.equal(await jobs.renew(job.id, 'owner-b', 30_000), false);
      assert.equal(await jobs.renew(job.id, 'owner-a', 30_000), true);
      assert.equal(await jobs.pendingCount(), 1);
    }),
    withStore('hands out each of many jobs exactly once to concurrent leasers', async ({ jobs }) => {
      for (let i = 0; i < 10; i += 1) await jobs.enqueue(jobInput());
      const leased = await Promise.all(Array.from({ length: 15 }, (_, i) => jobs.lease(`owner-${i}`, 30_000)));
      const ids = leased.filter((j): j is Job => j !== undefined).map((j) => j.id);
      assert.equal(ids.length, 10);
      assert.equal(new Set(ids).size, 10);
    }),
    withStore('stores the answer before delivery and completes with a receipt', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.saveAnswer(job.id, 'the prompt', 'the answer');
      const mid = await jobs.get(job.id);
      assert.equal(mid?.step, 'deliver');
      assert.equal(mid?.attempts, 1, 'the first delivery attempt runs at once under the same lease');
      assert.equal(mid?.prompt, 'the prompt');
      assert.equal(mid?.answer, 'the answer');
      await jobs.complete(job.id, { url: 'https://example.invalid/1' });
      const done = await jobs.get(job.id);
      assert.equal(done?.status, 'done');
      same(done?.receipt, { url: 'https://example.invalid/1' });
      assert.ok(done?.finishedAt);
      assert.equal(await jobs.pendingCount(), 0);
      assert.equal(await jobs.lease('owner-a', 30_000), undefined);
    }),
    withStore('records a failure and retries only once the retry time has come', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.fail(job.id, { at: Date.now(), step: 'agent', attempt: 1, message: 'boom', retryable: true }, Date.now() + 60_000);
      const waiting = await jobs.get(job.id);
      assert.equal(waiting?.status, 'pending');
      same(
        waiting?.errors.map((e) => e.message),
        ['boom'],
      );
      assert.equal(await jobs.lease('owner-a', 30_000), undefined, 'a job is not leased before its retry time');
      const other = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.fail(other.id, { at: Date.now(), step: 'agent', attempt: 1, message: 'first', retryable: true }, Date.now() - 1);
      const again = await eventually('a due retry is leased', takeover, () => jobs.lease('owner-a', 30_000));
      assert.equal(again.id, other.id);
      assert.equal(again.attempts, 2);
      assert.equal(again.errors.length, 1);
    }),
    withStore('keeps an exhausted job as a dead letter and can put it back, keeping the saved answer', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.saveAnswer(job.id, 'p', 'kept answer');
      await jobs.fail(job.id, { at: Date.now(), step: 'deliver', attempt: 1, message: 'HTTP 400', retryable: false }, null);
      const dead = await jobs.get(job.id);
      assert.equal(dead?.status, 'dead');
      assert.ok(dead?.finishedAt);
      assert.equal(await jobs.pendingCount(), 0);
      same(
        (await jobs.list({ status: 'dead' })).map((j) => j.id),
        [job.id],
      );
      assert.equal(await jobs.retryDead('no-such-job'), false);
      assert.equal(await jobs.retryDead(job.id), true);
      assert.equal(await jobs.retryDead(job.id), false, 'only a dead job can be retried');
      const revived = await eventually('a revived job is leased', takeover, () => jobs.lease('owner-a', 30_000));
      assert.equal(revived.id, job.id);
      assert.equal(revived.step, 'deliver');
      assert.equal(revived.answer, 'kept answer');
      assert.equal(revived.attempts, 1);
      assert.equal(revived.errors.length, 1);
    }),
    withStore('hands a released job back without counting the attempt', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.release(job.id);
      const back = await jobs.get(job.id);
      assert.equal(back?.status, 'pending');
      assert.equal(back?.attempts, 0);
      const again = await eventually('a released job is leased again', takeover, () => jobs.lease('owner-b', 30_000));
      assert.equal(again.id, job.id);
      assert.equal(again.attempts, 1);
    }),
    withStore('gives a job whose lease expired to another owner', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store, 'owner-a', shortLease);
      const taken = await eventually('an expired lease is taken over', takeover, () => jobs.lease('owner-b', 30_000));
      assert.equal(taken.id, job.id);
      assert.equal(taken.attempts, 2);
      assert.equal(await jobs.renew(job.id, 'owner-a', 30_000), false, 'the first owner lost its lease');
    }),
    withStore('lists jobs newest first, filtered by status and route, with a limit', async (store) => {
      const { jobs } = store;
      const a = await jobs.enqueue(jobInput({ route: 'a', receivedAt: 1 }));
      await sleep(5);
      const b = await jobs.enqueue(jobInput({ route: 'b', receivedAt: 2 }));
      await sleep(5);
      const c = await jobs.enqueue(jobInput({ route: 'a', receivedAt: 3 }));
      same(
        (await jobs.list()).map((j) => j.id),
        [c.id, b.id, a.id],
      );
      same(
        (await jobs.list({ route: 'a' })).map((j) => j.id),
        [c.id, a.id],
      );
      same(
        (await jobs.list({ limit: 1 })).map((j) => j.id),
        [c.id],
      );
      const leased = await leaseOne(store);
      await jobs.complete(leased.id, {});
      same(
        (await jobs.list({ status: 'done' })).map((j) => j.id),
        [leased.id],
      );
      assert.equal((await jobs.list({ status: 'pending' })).length, 2);
    }),
    withStore('accepts an event: counts the hit, remembers the id, enqueues the job', async (store) => {
      const accept = acceptorOf(store);
      const request = acceptRequest({ deliveryId: 'acc-1' });
      const result = await accept(request);
      assert.equal(result.outcome, 'accepted');
      const jobId = (result as { jobId: string }).jobId;
      const job = await store.jobs.get(jobId);
      assert.equal(job?.deliveryId, 'acc-1');
      assert.equal(job?.status, 'pending');
      same(job?.payload, request.job?.payload);
      assert.equal(await store.jobs.pendingCount(), 1);
      same(await accept(acceptRequest({ deliveryId: 'acc-1' })), { outcome: 'duplicate' });
      assert.equal((await accept(acceptRequest({ route: 'other', deliveryId: 'acc-1' }))).outcome, 'accepted');
      assert.equal(await store.jobs.pendingCount(), 2);
    }),
    withStore('accept remembers the id of an ignored event without enqueueing it', async (store) => {
      const accept = acceptorOf(store);
      same(await accept(acceptRequest({ deliveryId: 'ign-1', job: undefined })), { outcome: 'ignored' });
      same(await accept(acceptRequest({ deliveryId: 'ign-1' })), { outcome: 'duplicate' });
      assert.equal(await store.jobs.pendingCount(), 0);
    }),
    withStore('accept refuses a full rate window and does not remember the id', async (store) => {
      const accept = acceptorOf(store);
      for (let i = 0; i < 2; i += 1) assert.equal((await accept(acceptRequest({ rateLimit: 2 }))).outcome, 'accepted');
      const refused = await accept(acceptRequest({ deliveryId: 'late', rateLimit: 2 }));
      assert.equal(refused.outcome, 'rate_limited');
      const seconds = (refused as { retryAfterSeconds: number }).retryAfterSeconds;
      assert.ok(seconds >= 1 && seconds <= 60, `retryAfterSeconds ${seconds}`);
      assert.equal((await store.rateLimiter.check('ci', 2)).allowed, false);
      assert.equal((await accept(acceptRequest({ deliveryId: 'late', rateLimit: 10 }))).outcome, 'accepted');
      assert.equal(await store.jobs.pendingCount(), 3);
    }),
    withStore('accept answers backpressure above maxPending and does not remember the id', async (store) => {
      const accept = acceptorOf(store);
      assert.equal((await accept(acceptRequest({ maxPending: 1 }))).outcome, 'accepted');
      same(await accept(acceptRequest({ deliveryId: 'bp-1', maxPending: 1 })), { outcome: 'backpressure' });
      // A duplicate is still a duplicate under backpressure.
      assert.equal((await accept(acceptRequest({ deliveryId: 'bp-1', maxPending: 2 }))).outcome, 'accepted');
      same(await accept(acceptRequest({ deliveryId: 'bp-1', maxPending: 1 })), { outcome: 'duplicate' });
      assert.equal(await store.jobs.pendingCount(), 2);
    }),
    withStore('concurrent accepts: one id runs once, a window never overflows, the queue never passes maxPending', async (store) => {
      const accept = acceptorOf(store);
      const same20 = await Promise.all(Array.from({ length: 20 }, () => accept(acceptRequest({ deliveryId: 'race' }))));
      assert.equal(same20.filter((r) => r.outcome === 'accepted').length, 1);
      assert.equal(same20.filter((r) => r.outcome === 'duplicate').length, 19);
      const burst = await Promise.all(Array.from({ length: 25 }, () => accept(acceptRequest({ route: 'burst', rateLimit: 10 }))));
      assert.equal(burst.filter((r) => r.outcome === 'accepted').length, 10);
      assert.equal(burst.filter((r) => r.outcome === 'rate_limited').length, 15);
      const full = await Promise.all(Array.from({ length: 10 }, () => accept(acceptRequest({ route: 'full', maxPending: 15 }))));
      assert.equal(full.filter((r) => r.outcome === 'accepted').length, 4);
      assert.equal(await store.jobs.pendingCount(), 15);
    }),
    withStore("keeps each destination's delivery state on its job through retries, restarts of the step and completion", async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.saveAnswer(job.id, 'p', 'a');
      const failure: JobError = { at: 1, step: 'deliver', attempt: 1, destination: 'slack', message: 'HTTP 503', retryable: true };
      const states: DestinationState[] = [
        { destination: 'github_comment', status: 'delivered', attempts: 1, receipt: { url: 'https://x/1' }, deliveredAt: 5, errors: [] },
        { destination: 'slack', status: 'pending', attempts: 1, errors: [failure] },
      ];
      await jobs.saveDestinations(job.id, states);
      same((await jobs.get(job.id))?.destinations, states);
      // A retry: the state stays with the job while it waits and when it is leased again.
      await jobs.fail(job.id, failure, Date.now());
      same((await jobs.get(job.id))?.destinations, states);
      const again = await eventually('the retried job is leased', takeover, () => jobs.lease('owner-b', 30_000));
      same(again.destinations, states, 'a leased job carries its destinations');
      // A later write replaces the list (not merged).
      const delivered: DestinationState[] = [states[0], { ...states[1], status: 'delivered', attempts: 2, receipt: { ts: '1.2' }, deliveredAt: 9 }];
      await jobs.saveDestinations(job.id, delivered);
      await jobs.release(job.id);
      same((await jobs.get(job.id))?.destinations, delivered, 'kept through release');
      const third = await eventually('the released job is leased', takeover, () => jobs.lease('owner-a', 30_000));
      await jobs.complete(third.id, { destinations: 2 });
      const done = await jobs.get(job.id);
      assert.equal(done?.status, 'done');
      same(done?.destinations, delivered, 'kept on a done job');
      same((await jobs.findByDeliveryId(job.deliveryId))?.destinations, delivered);
      same((await jobs.list({ status: 'done' }))[0]?.destinations, delivered);
    }),
    withStore('keeps destination state on a dead letter and when it is retried', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.saveAnswer(job.id, 'p', 'a');
      const states: DestinationState[] = [
        { destination: 'github_comment', status: 'delivered', attempts: 1, receipt: { url: 'u' }, errors: [] },
        {
          destination: 'slack',
          status: 'dead',
          attempts: 5,
          errors: [{ at: 2, step: 'deliver', attempt: 5, destination: 'slack', message: 'invalid_auth', retryable: false }],
        },
      ];
      await jobs.saveDestinations(job.id, states);
      await jobs.fail(job.id, { at: 2, step: 'deliver', attempt: 1, destination: 'slack', message: 'invalid_auth', retryable: false }, null);
      same((await jobs.get(job.id))?.destinations, states);
      assert.equal(await jobs.retryDead(job.id), true);
      const revived = await eventually('a revived job is leased', takeover, () => jobs.lease('owner-a', 30_000));
      same(revived.destinations, states, 'the worker, not the store, decides what a retried dead letter sends again');
    }),
    withStore('a job without destination state has none', async (store) => {
      const job = await store.jobs.enqueue(jobInput());
      assert.equal((await store.jobs.get(job.id))?.destinations, undefined);
      await assert.rejects(store.jobs.saveDestinations('no-such-job', []), 'an unknown job is an error');
    }),
    withStore('delivery progress: set, get, replace, delete and expiry (when the store keeps progress)', async (store) => {
      const { progress } = store;
      if (!progress) return;
      const key = 'telegram\nci\nd-1';
      assert.equal(await progress.get(key), undefined);
      await progress.set(key, { ids: ['1'], already: [], partial: [] }, 60_000);
      same(await progress.get(key), { ids: ['1'], already: [], partial: [] });
      await progress.set(key, { ids: ['1', '2'], already: [], partial: [] }, 60_000);
      same(await progress.get(key), { ids: ['1', '2'], already: [], partial: [] });
      assert.equal(await progress.get('telegram\nother\nd-1'), undefined, 'keys are exact: another route is another entry');
      await progress.delete(key);
      assert.equal(await progress.get(key), undefined);
      await progress.set('short', 'x', 50);
      await sleep(120);
      assert.equal(await progress.get('short'), undefined, 'an entry is forgotten after its TTL');
    }),
    withStore('wakes idle workers when a job is enqueued', async ({ jobs }) => {
      if (!jobs.onReady) return;
      let woken = 0;
      const off = jobs.onReady(() => {
        woken += 1;
      });
      await jobs.enqueue(jobInput());
      await eventually('onReady fires', takeover, async () => (woken > 0 ? true : undefined));
      off();
    }),
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
    for (const c of storeContractCases({ ...options, open })) it(c.name, c.run, timeoutMs);
  });
}
