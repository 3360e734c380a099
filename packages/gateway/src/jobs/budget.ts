// Spend limits of agent runs (route `budget:` and global `agent.budget`): runs per clock hour and tokens per UTC day,
// counted in fixed windows (the store's WindowCounters, shared by every gateway on it) under one key per route and one
// for all routes together. Runs and tokens are counted with or without budgets, so that per-route sums always exist.
import type { AgentUsage, RouteBudget, WindowCounters } from '@hookwise/core';

/** Runs are counted per clock hour (windows start at multiples of their length since the epoch). */
export const RUNS_WINDOW_MS = 3_600_000;
/** Tokens are counted per UTC day. */
export const TOKENS_WINDOW_MS = 86_400_000;
/** The name under which every route's runs and tokens are counted together (`agent.budget`); never a route name. */
export const ALL_ROUTES = '*';

/** The counter key of a route's runs (`runs:*` for all routes). */
export function runsKey(route: string): string {
  return `runs:${route}`;
}

/** The counter key of a route's tokens (`tokens:*` for all routes). */
export function tokensKey(route: string): string {
  return `tokens:${route}`;
}

/** Epoch ms at which the fixed window holding `now` ends: when a spent budget has room again. */
export function windowEnd(now: number, windowMs: number): number {
  return (Math.floor(now / windowMs) + 1) * windowMs;
}

/** What a budget counts of a run's usage: input and output tokens (cached ones are part of the input). */
export function tokensOf(usage: AgentUsage | undefined): number {
  return (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0);
}

export interface RouteUsage {
  /** Agent runs started in the current clock hour (runs a budget refused are not counted). */
  runsThisHour: number;
  /** Tokens the runners reported in the current UTC day. */
  tokensToday: number;
}

/** A route's runs this hour and tokens today, read without counting anything (`ALL_ROUTES` for every route together). */
export async function routeUsage(counters: WindowCounters, route: string): Promise<RouteUsage> {
  const [runsThisHour, tokensToday] = await Promise.all([counters.add(runsKey(route), 0, RUNS_WINDOW_MS), counters.add(tokensKey(route), 0, TOKENS_WINDOW_MS)]);
  return { runsThisHour, tokensToday };
}

export type BudgetName = 'runs_per_hour' | 'tokens_per_day';

/** A budget that refused a run. */
export interface SpentBudget {
  /** The route's `budget:` or the global `agent.budget`. */
  scope: 'route' | 'global';
  budget: BudgetName;
  limit: number;
  action: RouteBudget['whenExceeded'];
  /** When the full window ends (epoch ms): a waiting job is due then. */
  until: number;
  /** For people, kept on the job: which budget, its limit, and what happens to the job. */
  note: string;
}

/** The ISO time of a window's end, without the milliseconds a window boundary never has. */
function isoTime(at: number): string {
  return new Date(at).toISOString().replace('.000Z', 'Z');
}

export function spentNote(spent: Pick<SpentBudget, 'scope' | 'budget' | 'limit' | 'action' | 'until'>): string {
  const which = spent.scope === 'route' ? 'route budget' : 'agent.budget';
  const then = spent.action === 'wait' ? `waiting until ${isoTime(spent.until)}` : 'skipped without an agent run';
  return `${which} ${spent.budget} (${spent.limit}) spent; ${then}`;
}

/**
 * Checks the budgets before each agent run and counts what runs use. A run is counted before it is compared (two
 * gateways that check at once cannot both take the last run of the hour) and taken back when a budget refuses it;
 * tokens are known only after a run, so a token budget refuses the runs after the one that spent it.
 */
export class BudgetKeeper {
  constructor(
    private readonly counters: WindowCounters,
    /** `agent.budget`: every route's runs together. */
    private readonly global: RouteBudget | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts a run of `route` and answers undefined, or answers the budget that is spent (the run not counted). */
  async admit(route: string, budget: RouteBudget | undefined): Promise<SpentBudget | undefined> {
    const limits = [
      { scope: 'route' as const, key: route, budget },
      { scope: 'global' as const, key: ALL_ROUTES, budget: this.global },
    ];
    // Tokens first: peeking counts nothing, so a spent token budget leaves the run counters as they were.
    for (const { scope, key, budget: limit } of limits) {
      if (limit?.tokensPerDay === undefined) continue;
      const used = await this.counters.add(tokensKey(key), 0, TOKENS_WINDOW_MS);
      if (used >= limit.tokensPerDay) return this.spent(scope, 'tokens_per_day', limit.tokensPerDay, limit.whenExceeded, TOKENS_WINDOW_MS);
    }
    const keys = [runsKey(route), runsKey(ALL_ROUTES)];
    const counted = await Promise.all(keys.map((key) => this.counters.add(key, 1, RUNS_WINDOW_MS)));
    for (const [index, { scope, budget: limit }] of limits.entries()) {
      if (limit?.runsPerHour === undefined || counted[index] <= limit.runsPerHour) continue;
      await Promise.all(keys.map((key) => this.counters.add(key, -1, RUNS_WINDOW_MS)));
      return this.spent(scope, 'runs_per_hour', limit.runsPerHour, limit.whenExceeded, RUNS_WINDOW_MS);
    }
    return undefined;
  }

  /** Adds a finished run's tokens to the route's and to all routes' count of the day. */
  async recordUsage(route: string, usage: AgentUsage | undefined): Promise<void> {
    const tokens = tokensOf(usage);
    if (tokens <= 0) return;
    await Promise.all([tokensKey(route), tokensKey(ALL_ROUTES)].map((key) => this.counters.add(key, tokens, TOKENS_WINDOW_MS)));
  }

  private spent(scope: SpentBudget['scope'], budget: BudgetName, limit: number, action: SpentBudget['action'], windowMs: number): SpentBudget {
    const until = windowEnd(this.now(), windowMs);
    return { scope, budget, limit, action, until, note: spentNote({ scope, budget, limit, action, until }) };
  }
}
