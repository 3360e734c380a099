// The admin API shows what each agent run came to (tokens, silent, skipped, held by a spent budget, the events a
// coalesced job stands for) and sums usage per route (GET /api/usage): over real HTTP, against a real gateway.
import type { TestGateway } from '@hookwise/testing';
import type { UsageReport } from '@hookwise/gateway';
import { send, settled, startObserved } from './observed-gateway';
import {
  CI_RUNS,
  CI_TOKENS,
  COALESCED_IDS,
  DELIVERED_USAGE,
  SILENT_NOTE,
  SILENT_USAGE,
  SKIPPED_NOTE,
  budgetedConfig,
  heldNote,
  heldUntil,
  startWithRunFacts,
} from './run-facts';

// startWithRunFacts may wait up to a minute for the clock hour to turn (see run-facts.ts).
jest.setTimeout(90_000);

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

interface Answer {
  delivery?: Record<string, unknown>;
  deliveries?: Array<Record<string, unknown>>;
  usage?: UsageReport;
  error?: string;
}

async function get(path: string): Promise<{ status: number; body: Answer }> {
  const res = await fetch(`${gw!.url}${path}`);
  return { status: res.status, body: (await res.json()) as Answer };
}

const usageOf = async (path: string): Promise<UsageReport> => (await get(path)).body.usage!;

const delivery = async (id: string) => (await get(`/api/deliveries/${encodeURIComponent(id)}`)).body.delivery!;

describe('admin API: run facts and usage', () => {
  it('shows each job as stored: tokens, outcome, note, the coalesced events and keys; summaries say them too', async () => {
    let now: number;
    ({ gw, now } = await startWithRunFacts({ admin: { enabled: true } }));

    expect(await delivery('facts-delivered')).toMatchObject({ status: 'done', usage: DELIVERED_USAGE, answer: 'All green.' });
    expect(await delivery('facts-silent')).toMatchObject({ status: 'done', outcome: 'silent', note: SILENT_NOTE, usage: SILENT_USAGE });
    expect(await delivery('facts-skipped')).toMatchObject({ status: 'done', outcome: 'skipped', note: SKIPPED_NOTE });
    expect(await delivery('facts-held')).toMatchObject({ status: 'pending', note: heldNote(now), runAt: heldUntil(now) });
    // Any of a coalesced job's delivery ids finds it.
    const coalesced = await delivery(COALESCED_IDS[1]);
    expect(coalesced).toMatchObject({
      deliveryId: COALESCED_IDS[0],
      status: 'pending',
      coalesceKey: 'hookwise#7',
      concurrencyKey: 'hookwise#7',
      coalesced: { deliveryIds: COALESCED_IDS, payloads: [{ n: 0 }, { n: 1 }, { n: 2 }].map((p) => ({ event_type: 'push', ...p })) },
    });

    const summaries = (await get('/api/deliveries')).body.deliveries!;
    const byId = Object.fromEntries(summaries.map((s) => [s.deliveryId, s]));
    expect(byId['facts-delivered']).toMatchObject({ outcome: 'delivered', usage: DELIVERED_USAGE, events: 1 });
    expect(byId['facts-silent']).toMatchObject({ outcome: 'silent', note: SILENT_NOTE });
    expect(byId['facts-skipped']).toMatchObject({ outcome: 'skipped', note: SKIPPED_NOTE });
    expect(byId['facts-held']).toMatchObject({ status: 'pending', note: heldNote(now) });
    expect(byId['facts-held'].outcome).toBeUndefined();
    expect(byId[COALESCED_IDS[0]]).toMatchObject({ events: 3 });
  });

  it('sums usage per route: budget counters against the limits, and the stored jobs of the period', async () => {
    ({ gw } = await startWithRunFacts({ admin: { enabled: true } }));

    const { status, body } = await get('/api/usage');
    expect(status).toBe(200);
    const usage = body.usage!;
    expect(usage).toMatchObject({
      complete: true,
      counted: true,
      jobsRead: 5,
      globalBudget: { runsPerHour: 100, whenExceeded: 'wait' },
      all: { runsThisHour: CI_RUNS + 1, tokensToday: 0 },
    });
    expect(usage.routes).toEqual([
      {
        route: 'ci',
        profile: 'default',
        budget: { runsPerHour: 20, tokensPerDay: 100_000, whenExceeded: 'wait' },
        runsThisHour: CI_RUNS,
        tokensToday: CI_TOKENS,
        stored: {
          jobs: 5,
          events: 7,
          agentRuns: 2,
          delivered: 1,
          silent: 1,
          skipped: 1,
          dead: 0,
          open: 2,
          inputTokens: 1250,
          outputTokens: 342,
          cachedInputTokens: 800,
          cacheWriteTokens: 100,
        },
      },
      expect.objectContaining({ route: 'docs', runsThisHour: 0, tokensToday: 0, stored: expect.objectContaining({ jobs: 0, inputTokens: 0 }) }),
    ]);
    expect(usage.routes[1].budget).toBeUndefined();

    // One route; a period that starts after the jobs; a period the API cannot read.
    const docs = await usageOf('/api/usage?route=docs');
    expect(docs.routes.map((r) => r.route)).toEqual(['docs']);
    expect(docs.all).toBeUndefined();
    const later = await usageOf(`/api/usage?since=${new Date(Date.now() + 60_000).toISOString()}`);
    expect(later.jobsRead).toBe(0);
    expect(later.routes[0]).toMatchObject({ route: 'ci', runsThisHour: CI_RUNS, stored: expect.objectContaining({ jobs: 0 }) });
    const countersOnly = await usageOf('/api/usage?stored=0');
    expect(countersOnly).toMatchObject({ jobsRead: 0, routes: [expect.objectContaining({ route: 'ci', runsThisHour: CI_RUNS }), expect.anything()] });
    expect(countersOnly.routes[0].stored.jobs).toBe(0);
    const bad = await get('/api/usage?since=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/since must be a duration back from now such as 30m, 24h or 7d/);
  });

  it('counts what the real worker ran: tokens the agent reported, stored per job and summed per route', async () => {
    gw = await startObserved({}, { config: budgetedConfig({ admin: { enabled: true } }) });
    for (const id of ['usage-1', 'usage-2'])
      await send(gw, 'ci', { event_type: 'push', ref: 'main', repository: { name: 'hookwise' } }, { 'x-request-id': id });
    await settled(gw, 2);
    // The observed agent reports 12 input and 5 output tokens a run.
    expect(await delivery('usage-1')).toMatchObject({ status: 'done', usage: { inputTokens: 12, outputTokens: 5 } });
    const usage = await usageOf('/api/usage?route=ci');
    expect(usage.routes).toEqual([
      expect.objectContaining({
        route: 'ci',
        runsThisHour: 2,
        tokensToday: 34,
        stored: expect.objectContaining({ jobs: 2, agentRuns: 2, delivered: 2, inputTokens: 24, outputTokens: 10 }),
      }),
    ]);
  });

  it('a store whose counters fail: GET /api/usage is a 503 saying why, the dashboard is served with the usage panel saying so', async () => {
    gw = await startObserved({}, { config: budgetedConfig({ admin: { ui: true } }) });
    const counters = gw.gateway.store.counters!;
    counters.add = () => Promise.reject(new Error('counter store unreachable'));
    const api = await get('/api/usage');
    expect(api.status).toBe(503);
    expect(api.body.error).toContain('counter store unreachable');
    const page = await fetch(`${gw.url}/ui`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('id="event-rows"');
    expect(html).toContain('Usage not available: counter store unreachable');
    expect(await (await fetch(`${gw.url}/ui/fragments/usage`)).text()).toContain('Usage not available: counter store unreachable');
  });
});
