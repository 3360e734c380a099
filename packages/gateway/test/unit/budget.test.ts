// Budgets: the counter keys and windows, what a route has used, and which run a budget refuses (and what it leaves
// counted), over the memory store's counters (what a store without its own gets too).
import {
  ALL_ROUTES,
  BudgetKeeper,
  RUNS_WINDOW_MS,
  TOKENS_WINDOW_MS,
  routeUsage,
  runsKey,
  spentNote,
  tokensKey,
  tokensOf,
  windowEnd,
} from '../../src/jobs/budget';
import { MemoryWindowCounters } from '../../src/stores/memory-counters';

const HOUR = 3_600_000;
/** 2026-11-24 13:20:00Z: inside the hour 13:00-14:00 and the UTC day of the 24th. */
const T = Date.UTC(2026, 10, 24, 13, 20);

function clock(at = T) {
  const now = { at };
  return { now, read: () => now.at };
}

describe('budget counters', () => {
  it('keys runs and tokens by route, with * for all routes together', () => {
    expect(runsKey('pr-review')).toBe('runs:pr-review');
    expect(tokensKey('pr-review')).toBe('tokens:pr-review');
    expect(runsKey(ALL_ROUTES)).toBe('runs:*');
    expect(tokensKey(ALL_ROUTES)).toBe('tokens:*');
    expect(RUNS_WINDOW_MS).toBe(HOUR);
    expect(TOKENS_WINDOW_MS).toBe(24 * HOUR);
  });

  it('ends a window at the next clock hour or UTC midnight', () => {
    expect(new Date(windowEnd(T, RUNS_WINDOW_MS)).toISOString()).toBe('2026-11-24T14:00:00.000Z');
    expect(new Date(windowEnd(T, TOKENS_WINDOW_MS)).toISOString()).toBe('2026-11-25T00:00:00.000Z');
    // A moment on the boundary belongs to the window it starts.
    expect(windowEnd(Date.UTC(2026, 10, 24, 14), RUNS_WINDOW_MS)).toBe(Date.UTC(2026, 10, 24, 15));
  });

  it('counts input and output tokens (cached ones are part of the input)', () => {
    expect(tokensOf({ inputTokens: 100, outputTokens: 20, cachedInputTokens: 80 })).toBe(120);
    expect(tokensOf({ outputTokens: 7 })).toBe(7);
    expect(tokensOf(undefined)).toBe(0);
  });

  it('reads what a route used this hour and today without counting anything', async () => {
    const time = clock();
    const counters = new MemoryWindowCounters(time.read);
    const keeper = new BudgetKeeper(counters, undefined, time.read);
    expect(await keeper.admit('ci', undefined)).toBeUndefined();
    expect(await keeper.admit('ci', undefined)).toBeUndefined();
    expect(await keeper.admit('docs', undefined)).toBeUndefined();
    await keeper.recordUsage('ci', { inputTokens: 300, outputTokens: 45 });
    expect(await routeUsage(counters, 'ci')).toEqual({ runsThisHour: 2, tokensToday: 345 });
    expect(await routeUsage(counters, 'ci')).toEqual({ runsThisHour: 2, tokensToday: 345 });
    expect(await routeUsage(counters, ALL_ROUTES)).toEqual({ runsThisHour: 3, tokensToday: 345 });
    // The next hour starts afresh; the day's tokens stay.
    time.now.at += HOUR;
    expect(await routeUsage(counters, 'ci')).toEqual({ runsThisHour: 0, tokensToday: 345 });
  });
});

describe('BudgetKeeper', () => {
  it('refuses the run after runs_per_hour, takes the refused run back, and says until when to wait', async () => {
    const time = clock();
    const counters = new MemoryWindowCounters(time.read);
    const keeper = new BudgetKeeper(counters, undefined, time.read);
    const budget = { runsPerHour: 2, whenExceeded: 'wait' as const };
    expect(await keeper.admit('ci', budget)).toBeUndefined();
    expect(await keeper.admit('ci', budget)).toBeUndefined();
    const spent = await keeper.admit('ci', budget);
    expect(spent).toEqual({
      scope: 'route',
      budget: 'runs_per_hour',
      limit: 2,
      action: 'wait',
      until: Date.UTC(2026, 10, 24, 14),
      note: 'route budget runs_per_hour (2) spent; waiting until 2026-11-24T14:00:00Z',
    });
    expect(await routeUsage(counters, 'ci')).toEqual({ runsThisHour: 2, tokensToday: 0 });
    expect(await routeUsage(counters, ALL_ROUTES)).toEqual({ runsThisHour: 2, tokensToday: 0 });
    // Another route has its own budget; the next hour has room again.
    expect(await keeper.admit('docs', budget)).toBeUndefined();
    time.now.at = Date.UTC(2026, 10, 24, 14);
    expect(await keeper.admit('ci', budget)).toBeUndefined();
  });

  it('refuses runs once the day holds tokens_per_day tokens, counting no run for them', async () => {
    const time = clock();
    const counters = new MemoryWindowCounters(time.read);
    const keeper = new BudgetKeeper(counters, undefined, time.read);
    const budget = { tokensPerDay: 1000, whenExceeded: 'skip' as const };
    expect(await keeper.admit('ci', budget)).toBeUndefined();
    await keeper.recordUsage('ci', { inputTokens: 600, outputTokens: 399 });
    expect(await keeper.admit('ci', budget)).toBeUndefined();
    await keeper.recordUsage('ci', { inputTokens: 1, outputTokens: 0 });
    expect(await keeper.admit('ci', budget)).toMatchObject({
      scope: 'route',
      budget: 'tokens_per_day',
      limit: 1000,
      action: 'skip',
      until: Date.UTC(2026, 10, 25),
      note: 'route budget tokens_per_day (1000) spent; skipped without an agent run',
    });
    expect(await routeUsage(counters, 'ci')).toEqual({ runsThisHour: 2, tokensToday: 1000 });
  });

  it('applies agent.budget to all routes together, with its own action', async () => {
    const time = clock();
    const counters = new MemoryWindowCounters(time.read);
    const keeper = new BudgetKeeper(counters, { runsPerHour: 3, whenExceeded: 'skip' }, time.read);
    const roomy = { runsPerHour: 10, whenExceeded: 'wait' as const };
    expect(await keeper.admit('ci', roomy)).toBeUndefined();
    expect(await keeper.admit('docs', undefined)).toBeUndefined();
    expect(await keeper.admit('ci', roomy)).toBeUndefined();
    const spent = await keeper.admit('docs', undefined);
    expect(spent).toMatchObject({ scope: 'global', budget: 'runs_per_hour', limit: 3, action: 'skip' });
    expect(spent?.note).toBe('agent.budget runs_per_hour (3) spent; skipped without an agent run');
    // The refused run is taken back from both counts.
    expect(await routeUsage(counters, 'docs')).toEqual({ runsThisHour: 1, tokensToday: 0 });
    expect(await routeUsage(counters, ALL_ROUTES)).toEqual({ runsThisHour: 3, tokensToday: 0 });
  });

  it('checks the route budget before the global one', async () => {
    const time = clock();
    const keeper = new BudgetKeeper(new MemoryWindowCounters(time.read), { runsPerHour: 1, whenExceeded: 'skip' }, time.read);
    expect(await keeper.admit('ci', { runsPerHour: 1, whenExceeded: 'wait' })).toBeUndefined();
    expect(await keeper.admit('ci', { runsPerHour: 1, whenExceeded: 'wait' })).toMatchObject({ scope: 'route', action: 'wait' });
  });

  it('counts a run with no limit set, so that per-route sums exist without budgets', async () => {
    const counters = new MemoryWindowCounters();
    const keeper = new BudgetKeeper(counters, undefined);
    for (let i = 0; i < 5; i += 1) expect(await keeper.admit('ci', undefined)).toBeUndefined();
    await keeper.recordUsage('ci', undefined);
    expect(await routeUsage(counters, 'ci')).toEqual({ runsThisHour: 5, tokensToday: 0 });
  });

  it('writes notes that name the budget, its limit and what happens to the job', () => {
    expect(spentNote({ scope: 'global', budget: 'tokens_per_day', limit: 50000, action: 'wait', until: Date.UTC(2026, 10, 25) })).toBe(
      'agent.budget tokens_per_day (50000) spent; waiting until 2026-11-25T00:00:00Z',
    );
  });
});
