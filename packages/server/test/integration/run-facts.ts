// Jobs with every run fact the displays show (tokens, silent, skipped, held by a spent budget, coalesced), written
// through the store API as the worker writes them, and budget counters as the worker counts them. Shared by the
// admin API, dashboard and CLI tests, which show them; the worker's own tests prove the worker writes them so.
import type { Job, JobInput, Store } from '@hookwise/core';
import type { TestGateway } from '@hookwise/testing';
import { observedConfig, startObserved } from './observed-gateway';
import { ALL_ROUTES, RUNS_WINDOW_MS, TOKENS_WINDOW_MS, runsKey, tokensKey, windowEnd, type Gateway } from '@hookwise/gateway';

export const DELIVERED_USAGE = { inputTokens: 1200, outputTokens: 340, cachedInputTokens: 800, cacheWriteTokens: 100 };
export const SILENT_USAGE = { inputTokens: 50, outputTokens: 2 };
/** The route actions the delivered job's run made (issue 30), as the worker stores them with the usage. */
export const DELIVERED_ACTIONS = [
  { index: 0, action: 'github.add_labels', status: 'done', attempts: 1, input: { labels: ['bug'] }, receipt: { labels: ['bug'] }, at: 1 },
  { index: 1, action: 'github.add_labels', status: 'refused', attempts: 0, reason: 'label(s) not allowed on this route: wontfix', at: 2 },
];
export const SKIPPED_NOTE = 'route budget runs_per_hour (20) spent; skipped without an agent run';
/** A held job waits for the end of the clock hour, as one held by a spent runs_per_hour budget does. */
export const heldUntil = (now = Date.now()): number => windowEnd(now, RUNS_WINDOW_MS);
export const heldNote = (now = Date.now()): string =>
  `route budget runs_per_hour (20) spent; waiting until ${new Date(heldUntil(now)).toISOString().replace('.000Z', 'Z')}`;
export const SILENT_NOTE = 'the agent answered [SILENT]: nothing delivered';
export const COALESCED_IDS = ['facts-pr7-a', 'facts-pr7-b', 'facts-pr7-c'];
/** What the counters hold for route ci: 12 runs this hour, 3,400 tokens today. */
export const CI_RUNS = 12;
export const CI_TOKENS = 3400;

const OWNER = 'run-facts-test';

/**
 * Stops a gateway's workers so that the jobs written here stay as written. A lease the pool had begun when it was
 * stopped still ends (the memory store's lease waits one turn of the event loop): two turns later it has.
 */
export async function stopWorkers(gateway: Gateway): Promise<void> {
  await gateway.workers.stop(1000);
  for (let turn = 0; turn < 2; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

function input(deliveryId: string, receivedAt: number, more: Partial<JobInput> = {}): JobInput {
  return { route: 'ci', event: 'push', deliveryId, payload: { event_type: 'push', ref: 'main', repository: { name: 'hookwise' } }, receivedAt, ...more };
}

/** Enqueues a job and takes it as a worker would; the queue must hold no other due job. */
async function leased(store: Store, job: JobInput): Promise<Job> {
  const made = await store.jobs.enqueue(job);
  const taken = await store.jobs.lease(OWNER, 60_000);
  if (taken?.id !== made.id) throw new Error(`expected to lease ${made.deliveryId}, got ${taken?.deliveryId ?? 'nothing'}`);
  return taken;
}

/**
 * Writes, on route ci, one job of each kind (the workers of a gateway on this store must be stopped): delivered with
 * tokens, silent, skipped, held by a spent budget, and three events coalesced into one pending job.
 */
export async function writeRunFacts(store: Store, now = Date.now()): Promise<void> {
  const delivered = await leased(store, input('facts-delivered', now - 5000, { concurrencyKey: 'hookwise#8' }));
  await store.jobs.saveAnswer(delivered.id, 'Build main of hookwise', 'All green.', {
    ...DELIVERED_USAGE,
    actions: DELIVERED_ACTIONS,
  } as typeof DELIVERED_USAGE);
  await store.jobs.complete(delivered.id, { target: 'chat-room-7' });

  const silent = await leased(store, input('facts-silent', now - 4000));
  await store.jobs.saveAnswer(silent.id, 'Build main of hookwise', '[SILENT]', SILENT_USAGE);
  await store.jobs.complete(silent.id, {}, { outcome: 'silent', note: SILENT_NOTE });

  const skipped = await leased(store, input('facts-skipped', now - 3000));
  await store.jobs.complete(skipped.id, {}, { outcome: 'skipped', note: SKIPPED_NOTE });

  const held = await leased(store, input('facts-held', now - 2000));
  await store.jobs.release(held.id, { runAt: heldUntil(now), note: heldNote(now) });

  // A window far longer than any test: the coalesced job stays pending.
  const coalesce = { key: 'hookwise#7', windowMs: 3_600_000, mode: 'all' as const };
  for (const [i, id] of COALESCED_IDS.entries())
    await store.jobs.enqueue(input(id, now - 1000 + i, { coalesce, concurrencyKey: 'hookwise#7', payload: { event_type: 'push', n: i } }));

  if (!store.counters) throw new Error('the store keeps no budget counters');
  await store.counters.add(runsKey('ci'), CI_RUNS, RUNS_WINDOW_MS);
  await store.counters.add(tokensKey('ci'), CI_TOKENS, TOKENS_WINDOW_MS);
  await store.counters.add(runsKey(ALL_ROUTES), CI_RUNS + 1, RUNS_WINDOW_MS);
}

/** The observed gateway's config with budgets: route ci 20 runs an hour and 100,000 tokens a day, all routes 100 runs. */
export function budgetedConfig(more: Record<string, unknown> = {}): Record<string, unknown> {
  const config = observedConfig(more) as {
    platforms: { webhook: { extra: { routes: Record<string, Record<string, unknown>> } } };
    agent: Record<string, unknown>;
  };
  config.platforms.webhook.extra.routes.ci.budget = { runs_per_hour: 20, tokens_per_day: 100_000 };
  config.agent.budget = { runs_per_hour: 100 };
  return config;
}

/** Within this much of the clock hour's end the tests that read the counters back could cross into the next hour (the files that call startWithRunFacts allow 90 s per hook). */
const HOUR_END_MARGIN_MS = 60_000;

/**
 * Waits for the next clock hour when the current one ends within the margin: the counters are written for this hour
 * (and this day) and the tests read them back later, which across the turn of the hour would find them empty.
 */
async function clearOfHourEnd(): Promise<void> {
  const left = windowEnd(Date.now(), RUNS_WINDOW_MS) - Date.now();
  if (left < HOUR_END_MARGIN_MS) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/**
 * An observed gateway on budgetedConfig(more) whose store holds writeRunFacts' jobs, written at `now`; its workers
 * are stopped first, so the jobs stay as the worker would have left them.
 */
export async function startWithRunFacts(more: Record<string, unknown>): Promise<{ gw: TestGateway; now: number }> {
  const gw = await startObserved({}, { config: budgetedConfig(more) });
  try {
    await stopWorkers(gw.gateway);
    await clearOfHourEnd();
    const now = Date.now();
    await writeRunFacts(gw.gateway.store, now);
    return { gw, now };
  } catch (err) {
    await gw.stop();
    throw err;
  }
}
