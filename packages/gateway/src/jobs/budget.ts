// Spend limits of agent runs (route `budget:` and global `agent.budget`): runs per clock hour, tokens and dollars per
// UTC day, counted in fixed windows (the store's WindowCounters, shared by every gateway on it) under one key per route
// and one for all routes together, and with `per:` one more per rendered key (each sender its own window). Runs,
// tokens and dollars are counted with or without budgets, so that per-route sums always exist. The per-run caps
// (tokens_per_run, usd_per_run) are the model proxy's to hold, call by call (model-proxy/).
import { createHash } from 'node:crypto';
import { renderTemplate, type AgentUsage, type RouteBudget, type WindowCounters } from '@hookwise/core';

/** Runs are counted per clock hour (windows start at multiples of their length since the epoch). */
export const RUNS_WINDOW_MS = 3_600_000;
/** Tokens are counted per UTC day. */
export const TOKENS_WINDOW_MS = 86_400_000;
/** Dollars are counted per UTC day, in millionths (counters hold whole numbers). */
export const USD_WINDOW_MS = TOKENS_WINDOW_MS;
export const MICRO_USD = 1_000_000;
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

/** The counter key of a route's dollars in millionths (`usd:*` for all routes). */
export function usdKey(route: string): string {
  return `usd:${route}`;
}

/** The name a budget's windows are counted under: the route (or `*`), or with `per:` the rendered key's own. */
export function windowName(name: string, per: string | undefined): string {
  return per === undefined ? name : `${name}|${per}`;
}

/** The rendered `per:` keys of a job: the route budget's and agent.budget's (absent when that budget has none). */
export interface BudgetKeys {
  route?: string;
  global?: string;
}

/** A rendered key is kept short: a long one keeps its start and gets a hash of the whole. */
function perKey(template: string | undefined, payload: unknown): string | undefined {
  if (template === undefined) return undefined;
  const rendered = renderTemplate(template, payload);
  return rendered.length <= 120 ? rendered : `${rendered.slice(0, 80)}#${createHash('sha256').update(rendered).digest('hex').slice(0, 32)}`;
}

export function budgetKeys(route: RouteBudget | undefined, global: RouteBudget | undefined, payload: unknown): BudgetKeys {
  return { route: perKey(route?.per, payload), global: perKey(global?.per, payload) };
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

export type BudgetName = 'runs_per_hour' | 'tokens_per_day' | 'usd_per_day' | 'tokens_per_run' | 'usd_per_run';

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

/** A limit as people read it: dollars with their sign, tokens and runs as counts. */
function limitText(budget: BudgetName, limit: number): string {
  return budget.startsWith('usd_') ? `$${limit}` : String(limit);
}

export function spentNote(spent: Pick<SpentBudget, 'scope' | 'budget' | 'limit' | 'action' | 'until'>): string {
  const which = spent.scope === 'route' ? 'route budget' : 'agent.budget';
  const then = spent.action === 'wait' ? `waiting until ${isoTime(spent.until)}` : 'skipped without an agent run';
  return `${which} ${spent.budget} (${limitText(spent.budget, spent.limit)}) spent; ${then}`;
}

/** A cap a run reached while it ran: the model proxy refuses its further calls and the job ends budget_exceeded. */
export interface RunCap {
  scope: SpentBudget['scope'];
  budget: BudgetName;
  limit: number;
  /** For people, kept on the job and told to the agent in the refusal. */
  note: string;
}

/** What a run has used so far (the model proxy's count of its calls). */
export interface RunSpend {
  tokens: number;
  usd: number;
}

/**
 * Checks the budgets before each agent run and counts what runs use. A run is counted before it is compared (two
 * gateways that check at once cannot both take the last run of the hour) and taken back when a budget refuses it;
 * tokens and dollars are known only after a run, so a day's budget refuses the runs after the one that spent it,
 * and the model proxy refuses that run's further calls (`runCap`).
 */
export class BudgetKeeper {
  constructor(
    private readonly counters: WindowCounters,
    /** `agent.budget`: every route's runs together. */
    private readonly global: RouteBudget | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  private limits(route: string, budget: RouteBudget | undefined, keys: BudgetKeys) {
    return [
      { scope: 'route' as const, name: route, key: windowName(route, keys.route), budget },
      { scope: 'global' as const, name: ALL_ROUTES, key: windowName(ALL_ROUTES, keys.global), budget: this.global },
    ];
  }

  /** Counts a run of `route` and answers undefined, or answers the budget that is spent (the run not counted). */
  async admit(route: string, budget: RouteBudget | undefined, keys: BudgetKeys = {}): Promise<SpentBudget | undefined> {
    const limits = this.limits(route, budget, keys);
    // Tokens and dollars first: peeking counts nothing, so a spent day's budget leaves the run counters as they were.
    for (const { scope, key, budget: limit } of limits) {
      if (limit?.tokensPerDay !== undefined && (await this.counters.add(tokensKey(key), 0, TOKENS_WINDOW_MS)) >= limit.tokensPerDay)
        return this.spent(scope, 'tokens_per_day', limit.tokensPerDay, limit.whenExceeded, TOKENS_WINDOW_MS);
      if (limit?.usdPerDay !== undefined && (await this.counters.add(usdKey(key), 0, USD_WINDOW_MS)) >= limit.usdPerDay * MICRO_USD)
        return this.spent(scope, 'usd_per_day', limit.usdPerDay, limit.whenExceeded, USD_WINDOW_MS);
    }
    const counterKeys = unique([runsKey(route), runsKey(ALL_ROUTES), ...limits.map((l) => runsKey(l.key))]);
    const counted = new Map(await Promise.all(counterKeys.map(async (key) => [key, await this.counters.add(key, 1, RUNS_WINDOW_MS)] as const)));
    for (const { scope, key, budget: limit } of limits) {
      if (limit?.runsPerHour === undefined || (counted.get(runsKey(key)) ?? 0) <= limit.runsPerHour) continue;
      await Promise.all(counterKeys.map((one) => this.counters.add(one, -1, RUNS_WINDOW_MS)));
      return this.spent(scope, 'runs_per_hour', limit.runsPerHour, limit.whenExceeded, RUNS_WINDOW_MS);
    }
    return undefined;
  }

  /**
   * The cap the run's next model call would pass, or undefined: its own tokens and dollars against tokens_per_run
   * and usd_per_run, and the day's (counted runs plus this one so far) against tokens_per_day and usd_per_day.
   */
  async runCap(route: string, budget: RouteBudget | undefined, keys: BudgetKeys, run: RunSpend): Promise<RunCap | undefined> {
    for (const { scope, key, budget: limit } of this.limits(route, budget, keys)) {
      if (!limit) continue;
      if (limit.tokensPerRun !== undefined && run.tokens >= limit.tokensPerRun) return runCap(scope, 'tokens_per_run', limit.tokensPerRun);
      if (limit.usdPerRun !== undefined && run.usd >= limit.usdPerRun) return runCap(scope, 'usd_per_run', limit.usdPerRun);
      if (limit.tokensPerDay !== undefined && (await this.counters.add(tokensKey(key), 0, TOKENS_WINDOW_MS)) + run.tokens >= limit.tokensPerDay)
        return runCap(scope, 'tokens_per_day', limit.tokensPerDay);
      if (limit.usdPerDay !== undefined && (await this.counters.add(usdKey(key), 0, USD_WINDOW_MS)) + run.usd * MICRO_USD >= limit.usdPerDay * MICRO_USD)
        return runCap(scope, 'usd_per_day', limit.usdPerDay);
    }
    return undefined;
  }

  /** Adds a finished run's tokens and dollars to the route's, all routes' and the `per:` keys' counts of the day. */
  async recordUsage(route: string, usage: AgentUsage | undefined, keys: BudgetKeys = {}): Promise<void> {
    const names = unique([route, ALL_ROUTES, windowName(route, keys.route), windowName(ALL_ROUTES, keys.global)]);
    const tokens = tokensOf(usage);
    const micro = Math.round((usage?.costUsd ?? 0) * MICRO_USD);
    const adds: Array<Promise<number>> = [];
    if (tokens > 0) adds.push(...names.map((name) => this.counters.add(tokensKey(name), tokens, TOKENS_WINDOW_MS)));
    if (micro > 0) adds.push(...names.map((name) => this.counters.add(usdKey(name), micro, USD_WINDOW_MS)));
    await Promise.all(adds);
  }

  private spent(scope: SpentBudget['scope'], budget: BudgetName, limit: number, action: SpentBudget['action'], windowMs: number): SpentBudget {
    const until = windowEnd(this.now(), windowMs);
    return { scope, budget, limit, action, until, note: spentNote({ scope, budget, limit, action, until }) };
  }
}

function unique(keys: string[]): string[] {
  return [...new Set(keys)];
}

function runCap(scope: RunCap['scope'], budget: BudgetName, limit: number): RunCap {
  const which = scope === 'route' ? 'route budget' : 'agent.budget';
  const note = `${which} ${budget} (${limitText(budget, limit)}) reached: the model proxy refused the run's further model calls; not retried`;
  return { scope, budget, limit, note };
}
