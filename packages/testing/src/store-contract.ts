// Contract tests for Store backends (delivery ids, rate windows, job queue, per-destination state, progress): framework-neutral cases (node:assert),
// and describeStoreContract, which runs them as jest tests.
/// <reference types="jest" />
import assert from 'node:assert/strict';
import { SequentialAcceptor } from '@hookwise/gateway';
import {
  COALESCE_MAX_EVENTS,
  type AcceptOutcome,
  type AcceptRequest,
  type DestinationState,
  type Job,
  type JobError,
  type JobInput,
  type Store,
} from '@hookwise/core';

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

  const cases: StoreContractCase[] = [
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

  // Issue 23: usage, outcomes and holds, coalescing, concurrency keys and budget counters (core's stores/types.ts).
  const coalescing = (key: string, mode: 'latest' | 'all', overrides: Partial<JobInput> = {}, windowMs = 60_000): JobInput =>
    jobInput({ coalesce: { key, windowMs, mode }, ...overrides });
  const failure = (message: string): JobError => ({ at: Date.now(), step: 'agent', attempt: 1, message, retryable: true });

  const usageAndEndings: StoreContractCase[] = [
    withStore('saveAnswer keeps the usage the runner reported; get, findByDeliveryId, lease and list return it', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store);
      const usage = { inputTokens: 1200, outputTokens: 340, cachedInputTokens: 1000, cacheWriteTokens: 0 };
      await jobs.saveAnswer(job.id, 'p', 'a', usage);
      same((await jobs.get(job.id))?.usage, usage);
      same((await jobs.findByDeliveryId(job.deliveryId))?.usage, usage);
      await jobs.release(job.id);
      same((await eventually('the released job is leased', takeover, () => jobs.lease('owner-b', 30_000))).usage, usage, 'a leased job carries its usage');
      await jobs.complete(job.id, {});
      same((await jobs.list({ status: 'done' }))[0]?.usage, usage);
      // A runner that reports part of the usage, and one that reports none.
      const partly = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.saveAnswer(partly.id, 'p', 'a', { outputTokens: 5 });
      same((await jobs.get(partly.id))?.usage, { outputTokens: 5 });
      await jobs.complete(partly.id, {});
      const none = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.saveAnswer(none.id, 'p', 'a');
      assert.equal((await jobs.get(none.id))?.usage, undefined);
    }),
    withStore('complete with an ending records its outcome and note; a plain complete leaves the outcome absent', async (store) => {
      const { jobs } = store;
      const delivered = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.complete(delivered.id, { url: 'https://example.invalid/1' });
      const plainDone = await jobs.get(delivered.id);
      assert.equal(plainDone?.status, 'done');
      assert.equal(plainDone?.outcome, undefined, 'absent means delivered');
      assert.equal(plainDone?.note, undefined);
      const silent = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.saveAnswer(silent.id, 'p', '[SILENT]');
      await jobs.complete(silent.id, undefined, { outcome: 'silent', note: 'the agent answered the silent marker' });
      const silentDone = await jobs.get(silent.id);
      assert.equal(silentDone?.status, 'done');
      assert.equal(silentDone?.outcome, 'silent');
      assert.equal(silentDone?.note, 'the agent answered the silent marker');
      assert.ok(silentDone?.finishedAt);
      const skipped = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.complete(skipped.id, undefined, { outcome: 'skipped' });
      const skippedDone = await jobs.findByDeliveryId(skipped.deliveryId);
      assert.equal(skippedDone?.outcome, 'skipped');
      assert.equal(skippedDone?.note, undefined, 'an ending without a note leaves none');
      const outcomes = new Map((await jobs.list({ status: 'done' })).map((j) => [j.id, j.outcome ?? 'absent']));
      same(Object.fromEntries(outcomes), { [skipped.id]: 'skipped', [silent.id]: 'silent', [delivered.id]: 'absent' }, 'list returns the outcomes');
      assert.equal(await jobs.pendingCount(), 0);
    }),
    withStore('release with a hold: pending until the hold ends, attempt not counted, its note shown until the job is leased again', async (store) => {
      const { jobs } = store;
      const held = await jobs.enqueue(jobInput());
      await leaseOne(store);
      const until = Date.now() + 60_000;
      const note = 'route budget runs_per_hour (1) spent; waiting until the next hour';
      await jobs.release(held.id, { runAt: until, note });
      const waiting = await jobs.get(held.id);
      assert.equal(waiting?.status, 'pending');
      assert.equal(waiting?.attempts, 0, 'the held attempt is not counted');
      assert.equal(waiting?.runAt, until);
      assert.equal(waiting?.note, note);
      assert.equal(await jobs.pendingCount(), 1);
      assert.equal(await jobs.lease('owner-b', 30_000), undefined, 'a held job is not leased before its hold ends');
      // A short hold: leased once it ends, and the note is gone then.
      const short = await jobs.enqueue(jobInput());
      assert.equal((await leaseOne(store)).id, short.id);
      await jobs.release(short.id, { runAt: Date.now() + 200, note: 'wait a moment' });
      assert.equal((await jobs.get(short.id))?.note, 'wait a moment');
      const again = await eventually('the job is leased when its hold ends', takeover, () => jobs.lease('owner-b', 30_000));
      assert.equal(again.id, short.id);
      assert.equal(again.attempts, 1);
      assert.equal(again.note, undefined, 'the note is cleared when the job is leased again');
      assert.equal((await jobs.get(short.id))?.note, undefined);
      assert.equal((await jobs.get(held.id))?.note, note, 'the other job still waits with its note');
    }),
    withStore('release with a hold in the delivery step keeps the answer and the attempts before the lease', async (store) => {
      const { jobs } = store;
      const job = await jobs.enqueue(jobInput());
      await leaseOne(store);
      await jobs.saveAnswer(job.id, 'p', 'kept answer');
      await jobs.fail(job.id, { ...failure('HTTP 503'), step: 'deliver' }, Date.now());
      const second = await eventually('the retry is leased', takeover, () => jobs.lease('owner-a', 30_000));
      assert.equal(second.attempts, 2);
      await jobs.release(job.id, { runAt: Date.now() + 100, note: 'held' });
      const held = await jobs.get(job.id);
      assert.equal(held?.attempts, 1, 'back to what it was before the lease');
      assert.equal(held?.step, 'deliver');
      const third = await eventually('the held job is leased', takeover, () => jobs.lease('owner-a', 30_000));
      assert.equal(third.attempts, 2);
      assert.equal(third.answer, 'kept answer');
      assert.equal(third.errors.length, 1);
    }),
    withStore('keeps a job apart from the input it was enqueued from: later changes to that object do not reach the job', async ({ jobs }) => {
      const routeDefinition = { origin: 'static' as const, prompt: 'Review {number}', skills: ['review'], deliver: 'github_comment', deliverExtra: {} };
      const input = jobInput({ payload: { title: 'first', list: [1] }, routeDefinition });
      const job = await jobs.enqueue(input);
      (input.payload as { title: string; list: number[] }).title = 'changed';
      (input.payload as { title: string; list: number[] }).list.push(2);
      routeDefinition.skills.push('other');
      routeDefinition.prompt = 'changed';
      same((await jobs.get(job.id))?.payload, { title: 'first', list: [1] });
      same((await jobs.get(job.id))?.routeDefinition, {
        origin: 'static',
        prompt: 'Review {number}',
        skills: ['review'],
        deliver: 'github_comment',
        deliverExtra: {},
      });
    }),
  ];

  const coalescingCases: StoreContractCase[] = [
    withStore('coalesces events of one route and key into one waiting job (mode latest): the latest payload and event, every delivery id', async ({ jobs }) => {
      const start = Date.now();
      const first = coalescing('pr-1', 'latest', { event: 'pull_request', payload: { n: 1 }, receivedAt: start });
      const created = await jobs.enqueue(first);
      assert.equal(created.status, 'pending');
      assert.equal(created.coalesceKey, 'pr-1');
      assert.equal(created.runAt, start + 60_000, 'due windowMs after its first event');
      same(created.coalesced, { deliveryIds: [first.deliveryId] });
      const second = coalescing('pr-1', 'latest', { event: 'push', payload: { n: 2 }, receivedAt: start + 1_000 });
      const third = coalescing('pr-1', 'latest', { event: 'pull_request_review', payload: { n: 3 }, receivedAt: start + 2_000 });
      assert.equal((await jobs.enqueue(second)).id, created.id);
      const merged = await jobs.enqueue(third);
      assert.equal(merged.id, created.id, 'enqueue returns the job the event joined');
      same(merged.coalesced?.deliveryIds, [first.deliveryId, second.deliveryId, third.deliveryId]);
      const stored = await jobs.get(created.id);
      same(stored?.payload, { n: 3 });
      assert.equal(stored?.event, 'pull_request_review');
      assert.equal(stored?.deliveryId, first.deliveryId, 'the job keeps its first delivery id');
      same(stored?.coalesced, { deliveryIds: [first.deliveryId, second.deliveryId, third.deliveryId] }, 'mode latest keeps no payload list');
      assert.equal(stored?.runAt, start + 60_000, 'the window is never extended');
      assert.equal(await jobs.pendingCount(), 1);
      for (const input of [first, second, third]) assert.equal((await jobs.findByDeliveryId(input.deliveryId))?.id, created.id, input.deliveryId);
      assert.equal(await jobs.lease('owner-a', 30_000), undefined, 'not leased before its window ends');
    }),
    withStore('mode all keeps every payload in arrival order, and the latest as the payload', async ({ jobs }) => {
      const inputs = [1, 2, 3, 4].map((n) => coalescing('pr-2', 'all', { payload: { n, text: `event ${n}` } }));
      const ids = new Set<string>();
      for (const input of inputs) ids.add((await jobs.enqueue(input)).id);
      assert.equal(ids.size, 1);
      const stored = await jobs.get([...ids][0] as string);
      same(stored?.coalesced, {
        deliveryIds: inputs.map((i) => i.deliveryId),
        payloads: inputs.map((i) => i.payload),
      });
      same(stored?.payload, { n: 4, text: 'event 4' });
      const alone = await jobs.enqueue(coalescing('pr-3', 'all', { payload: { only: true } }));
      same(alone.coalesced, { deliveryIds: [alone.deliveryId], payloads: [{ only: true }] });
    }),
    withStore('another key, another route or no coalescing: a job of its own', async ({ jobs }) => {
      const first = await jobs.enqueue(coalescing('pr-1', 'latest', { route: 'a' }));
      const otherKey = await jobs.enqueue(coalescing('pr-2', 'latest', { route: 'a' }));
      const otherRoute = await jobs.enqueue(coalescing('pr-1', 'latest', { route: 'b' }));
      const plainJob = await jobs.enqueue(jobInput({ route: 'a' }));
      assert.equal(new Set([first.id, otherKey.id, otherRoute.id, plainJob.id]).size, 4);
      assert.equal(plainJob.coalesced, undefined, 'a job enqueued without coalesce has no coalesced events');
      assert.equal(plainJob.coalesceKey, undefined);
      const joined = await jobs.enqueue(coalescing('pr-1', 'latest', { route: 'a' }));
      assert.equal(joined.id, first.id);
      assert.equal(await jobs.pendingCount(), 4);
    }),
    withStore('a job that was leased never takes more events, also once a shutdown handed it back', async (store) => {
      const { jobs } = store;
      // Its window already ended: due at once.
      const first = await jobs.enqueue(coalescing('pr-4', 'latest', { receivedAt: Date.now() - 120_000 }));
      assert.equal((await leaseOne(store)).id, first.id);
      const second = await jobs.enqueue(coalescing('pr-4', 'latest'));
      assert.notEqual(second.id, first.id, 'an event after the lease starts a new job');
      same(second.coalesced?.deliveryIds, [second.deliveryId]);
      await jobs.release(first.id);
      assert.equal((await jobs.get(first.id))?.attempts, 0);
      const third = await jobs.enqueue(coalescing('pr-4', 'latest'));
      assert.equal(third.id, second.id, 'the released job does not take it: the new job does');
      same((await jobs.get(first.id))?.coalesced?.deliveryIds, [first.deliveryId]);
      assert.equal(await jobs.pendingCount(), 2);
    }),
    withStore(
      `a job holds at most COALESCE_MAX_EVENTS (${COALESCE_MAX_EVENTS}) events; the next starts a new job that takes the ones after it`,
      async ({ jobs }) => {
        const inputs = Array.from({ length: COALESCE_MAX_EVENTS + 2 }, (_, i) => coalescing('pr-5', 'all', { payload: { i } }));
        const ids: string[] = [];
        for (const input of inputs) ids.push((await jobs.enqueue(input)).id);
        const [full, next] = [ids[0] as string, ids[COALESCE_MAX_EVENTS] as string];
        assert.equal(new Set(ids.slice(0, COALESCE_MAX_EVENTS)).size, 1);
        assert.notEqual(next, full);
        assert.equal(ids[COALESCE_MAX_EVENTS + 1], next);
        const fullJob = await jobs.get(full);
        assert.equal(fullJob?.coalesced?.deliveryIds.length, COALESCE_MAX_EVENTS);
        same(fullJob?.coalesced?.payloads?.at(-1), { i: COALESCE_MAX_EVENTS - 1 });
        same((await jobs.get(next))?.coalesced?.deliveryIds, [inputs[COALESCE_MAX_EVENTS]?.deliveryId, inputs[COALESCE_MAX_EVENTS + 1]?.deliveryId]);
        assert.equal((await jobs.findByDeliveryId(inputs[COALESCE_MAX_EVENTS - 1]?.deliveryId ?? ''))?.id, full);
        assert.equal(await jobs.pendingCount(), 2);
      },
    ),
    withStore('accept coalesces: a joining event is accepted with the waiting job id and coalesced: true; its id is then a duplicate', async (store) => {
      const accept = acceptorOf(store);
      const request = (deliveryId: string): AcceptRequest =>
        acceptRequest({ deliveryId, job: coalescing('pr-9', 'all', { deliveryId, payload: { deliveryId } }) });
      const first = await accept(request('co-1'));
      assert.equal(first.outcome, 'accepted');
      assert.ok(!(first as { coalesced?: boolean }).coalesced, 'the first event makes the job');
      const jobId = (first as { jobId: string }).jobId;
      same(await accept(request('co-2')), { outcome: 'accepted', jobId, coalesced: true });
      same(await accept(request('co-2')), { outcome: 'duplicate' });
      same(await accept(request('co-3')), { outcome: 'accepted', jobId, coalesced: true });
      assert.equal(await store.jobs.pendingCount(), 1);
      same((await store.jobs.get(jobId))?.coalesced, {
        deliveryIds: ['co-1', 'co-2', 'co-3'],
        payloads: [{ deliveryId: 'co-1' }, { deliveryId: 'co-2' }, { deliveryId: 'co-3' }],
      });
      assert.equal((await store.jobs.findByDeliveryId('co-3'))?.id, jobId);
    }),
  ];

  const concurrencyCases: StoreContractCase[] = [
    withStore(
      'concurrency key: lease skips a job whose route and key has a running job and takes the next; the skipped one follows when that one ends',
      async (store) => {
        const { jobs } = store;
        const a = await jobs.enqueue(jobInput({ concurrencyKey: 'pr-1' }));
        const b = await jobs.enqueue(jobInput({ concurrencyKey: 'pr-1' }));
        const c = await jobs.enqueue(jobInput({ concurrencyKey: 'pr-2' }));
        const d = await jobs.enqueue(jobInput({ route: 'other', concurrencyKey: 'pr-1' }));
        const e = await jobs.enqueue(jobInput());
        assert.equal((await jobs.get(a.id))?.concurrencyKey, 'pr-1');
        assert.equal((await leaseOne(store)).id, a.id);
        assert.equal((await leaseOne(store)).id, c.id, 'b waits for a; c (another key) is next');
        assert.equal((await leaseOne(store)).id, d.id, 'the same key on another route is another key');
        assert.equal((await leaseOne(store)).id, e.id);
        assert.equal(await jobs.lease('owner-a', 30_000), undefined);
        assert.equal((await jobs.get(b.id))?.status, 'pending');
        assert.equal(await jobs.pendingCount(), 5);
        let woken = 0;
        const off = jobs.onReady?.(() => {
          woken += 1;
        });
        await jobs.complete(a.id, {});
        assert.equal((await eventually('b is leased once a is done', takeover, () => jobs.lease('owner-a', 30_000))).id, b.id);
        if (off) assert.ok(woken > 0, 'onReady fired when the key became free');
        off?.();
      },
    ),
    withStore('concurrency key: freed when the running job fails (retry later) or is handed back; never two at once', async (store) => {
      const { jobs } = store;
      const a = await jobs.enqueue(jobInput({ concurrencyKey: 'k' }));
      const b = await jobs.enqueue(jobInput({ concurrencyKey: 'k' }));
      assert.equal((await leaseOne(store)).id, a.id);
      assert.equal(await jobs.lease('owner-b', 30_000), undefined);
      await jobs.fail(a.id, failure('boom'), Date.now() + 60_000);
      assert.equal((await eventually('b is leased once a failed', takeover, () => jobs.lease('owner-b', 30_000))).id, b.id);
      await jobs.release(b.id);
      const next = await eventually('b is leased again after its release', takeover, () => jobs.lease('owner-b', 30_000));
      assert.equal(next.id, b.id);
      const c = await jobs.enqueue(jobInput({ concurrencyKey: 'k' }));
      await jobs.release(b.id);
      const one = await eventually('one of b and c is leased', takeover, () => jobs.lease('owner-c', 30_000));
      assert.ok([b.id, c.id].includes(one.id));
      assert.equal(await jobs.lease('owner-c', 30_000), undefined, 'the other one waits: one running job per key');
    }),
    withStore('concurrency key: a running job whose lease expired blocks nothing, and is not taken over while another of its key runs', async (store) => {
      const { jobs } = store;
      await jobs.enqueue(jobInput({ concurrencyKey: 'k' }));
      await jobs.enqueue(jobInput({ concurrencyKey: 'k' }));
      const leasedAt = Date.now();
      await leaseOne(store, 'owner-a', shortLease);
      const early = await jobs.lease('owner-b', 30_000);
      // Handed out only if the first lease had expired meanwhile (a slow machine); otherwise the key is busy.
      if (early) assert.ok(Date.now() - leasedAt >= shortLease, 'a job of a key with a running job under a live lease was leased');
      const taken = early ?? (await eventually('a job of the key is leased once the lease expired', takeover, () => jobs.lease('owner-b', 30_000)));
      assert.ok(taken);
      assert.equal(await jobs.lease('owner-c', 30_000), undefined, 'the key runs one job under a live lease');
    }),
  ];

  const counterCase = (name: string, body: (counters: NonNullable<Store['counters']>) => Promise<void>): StoreContractCase => {
    if (options.counters === false) return { name, skip: 'the store has no counters (options.counters: false)', run: async () => undefined };
    return withStore(name, async (store) => {
      assert.ok(store.counters, 'store.counters is missing: implement WindowCounters, or pass { counters: false } to the contract to skip these cases');
      await body(store.counters);
    });
  };
  const HOUR_MS = 3_600_000;
  const counterCases: StoreContractCase[] = [
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

  return [...cases, ...usageAndEndings, ...coalescingCases, ...concurrencyCases, ...counterCases];
}

/** Waits, if need be, until the current fixed window of `windowMs` has begun and has not ended `marginMs` either side of now. */
async function awayFromWindowEdge(windowMs: number, marginMs: number): Promise<void> {
  const into = Date.now() % windowMs;
  if (into >= marginMs && into <= windowMs - marginMs) return;
  await sleep((into < marginMs ? marginMs - into : windowMs - into + marginMs) + 1);
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
