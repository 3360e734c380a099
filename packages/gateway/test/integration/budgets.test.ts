// Budgets over real HTTP with the real worker, on the memory store and on SQLite: runs_per_hour and tokens_per_day
// per route and agent.budget for all routes; a refused job waits for the window's end (pending, with a note, its
// attempt not counted) or is skipped; refusals are logged and counted in the metrics.
import type { Job } from '@hookwise/core';
import type { TestGateway } from '@hookwise/testing';
import { STORES, awayFromHourEnd, isDone, recorded, send, shown, startWorkerGateway, until } from './worker-gateway';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

beforeEach(() => awayFromHourEnd(), 30_000);

/** The three jobs once two have run and one was refused by the budget (waiting with a note, or done). */
async function afterThree(gw: TestGateway, ids: string[], refused: (job: Job) => boolean): Promise<{ ran: Job[]; refused: Job }> {
  const end = Date.now() + 10_000;
  for (;;) {
    const jobs = await Promise.all(ids.map((id) => shown(gw, id)));
    const ran = jobs.filter((job) => job.status === 'done' && job.outcome === undefined);
    const held = jobs.filter(refused);
    if (ran.length === 2 && held.length === 1) return { ran, refused: held[0] };
    if (Date.now() > end)
      throw new Error(`not settled: ${JSON.stringify(jobs.map(({ deliveryId, status, outcome, note }) => ({ deliveryId, status, outcome, note })))}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const nextHour = (at: number) => (Math.floor(at / HOUR) + 1) * HOUR;
const isoSeconds = (at: number) => new Date(at).toISOString().replace('.000Z', 'Z');

describe.each(STORES)('budgets on the %s store', (store) => {
  it('runs_per_hour 2, wait: the third event waits for the next hour, pending with a note, its attempt not counted', async () => {
    gw = await startWorkerGateway(store, { review: { budget: { runs_per_hour: 2 } } }, { metrics: { enabled: true } });
    const ids = ['run-1', 'run-2', 'run-3'];
    for (const id of ids) await send(gw, 'review', id, { answer: `review of ${id}` });
    const { refused } = await afterThree(gw, ids, (job) => job.status === 'pending' && job.note !== undefined);
    const due = nextHour(Date.now());
    expect(refused.runAt).toBe(due);
    expect(refused.note).toBe(`route budget runs_per_hour (2) spent; waiting until ${isoSeconds(due)}`);
    expect(refused.attempts).toBe(0);
    expect(refused.answer).toBeUndefined();
    expect(recorded(gw)).toHaveLength(2);
    expect(gw.logText()).toContain(`${refused.deliveryId} on route 'review': route budget runs_per_hour (2) spent; waiting until`);
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toContain('hookwise_budget_exceeded_total{route="review",scope="route",budget="runs_per_hour",action="wait"} 1');
    expect(metrics).toContain('hookwise_jobs_completed_total{route="review",outcome="delivered"} 2');
  });

  it('runs_per_hour 2, skip: the third event is done as skipped without an agent run', async () => {
    gw = await startWorkerGateway(store, { review: { budget: { runs_per_hour: 2, when_exceeded: 'skip' } } }, { metrics: { enabled: true } });
    const ids = ['skip-1', 'skip-2', 'skip-3'];
    for (const id of ids) await send(gw, 'review', id, { answer: `review of ${id}` });
    const { refused } = await afterThree(gw, ids, (job) => job.status === 'done' && job.outcome === 'skipped');
    expect(refused.note).toBe('route budget runs_per_hour (2) spent; skipped without an agent run');
    expect(refused.answer).toBeUndefined();
    expect(recorded(gw).map((d) => d.deliveryId)).not.toContain(refused.deliveryId);
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toContain('hookwise_budget_exceeded_total{route="review",scope="route",budget="runs_per_hour",action="skip"} 1');
    expect(metrics).toContain('hookwise_jobs_completed_total{route="review",outcome="skipped"} 1');
  });

  it('tokens_per_day: once a run has spent the day’s tokens, the next run waits for the next UTC day', async () => {
    gw = await startWorkerGateway(store, { review: { budget: { tokens_per_day: 100 } } });
    await send(gw, 'review', 'tokens-1', { answer: 'A long review.', usage: { inputTokens: 80, outputTokens: 30 } });
    expect(await until(gw, 'tokens-1', isDone)).toMatchObject({ status: 'done', usage: { inputTokens: 80, outputTokens: 30 } });
    await send(gw, 'review', 'tokens-2', { answer: 'Another review.' });
    const waiting = await until(gw, 'tokens-2', (job) => job.note !== undefined);
    const due = (Math.floor(Date.now() / DAY) + 1) * DAY;
    expect(waiting).toMatchObject({ status: 'pending', runAt: due, attempts: 0 });
    expect(waiting.note).toBe(`route budget tokens_per_day (100) spent; waiting until ${isoSeconds(due)}`);
    expect(recorded(gw).map((d) => d.deliveryId)).toEqual(['tokens-1']);
  });

  it('agent.budget limits all routes together', async () => {
    gw = await startWorkerGateway(store, { review: {}, triage: {} }, { agent: { budget: { runs_per_hour: 1, when_exceeded: 'skip' } } });
    await send(gw, 'review', 'all-1', { answer: 'first' });
    await until(gw, 'all-1', isDone);
    await send(gw, 'triage', 'all-2', { answer: 'second' });
    expect(await until(gw, 'all-2', isDone)).toMatchObject({
      outcome: 'skipped',
      note: 'agent.budget runs_per_hour (1) spent; skipped without an agent run',
    });
    expect(recorded(gw).map((d) => d.deliveryId)).toEqual(['all-1']);
  });
});
