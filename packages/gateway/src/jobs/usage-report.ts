// Usage per route: what the budgets count now (agent runs this clock hour, tokens this UTC day, from the store's
// window counters) beside the route's limits, and sums over the stored jobs of a period (tokens, agent runs, how
// they ended). Made here for the admin API (GET /api/usage) and the dashboard, and by the CLI from the store when
// no gateway serves the API.
import type { JobQueue, JobSummary, RouteBudget } from '@hookwise/core';
import { listJobSummaries, wasAnswered } from '../stores/job-summaries';
import { ALL_ROUTES } from './budget';
import { eventCount, jobOutcome, tokenCount } from './job-facts';

/** Sums over a route's stored jobs received in the period. */
export interface JobSums {
  jobs: number;
  /** Webhook events the jobs stand for (a coalesced job counts each of its events). */
  events: number;
  /** Jobs whose agent answered (silent ones included; skipped ones never ran). */
  agentRuns: number;
  delivered: number;
  silent: number;
  skipped: number;
  dead: number;
  /** Pending or running. */
  open: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  /** Dollars the model proxy priced the jobs' runs at; absent while no run was priced (runs without the proxy). */
  costUsd?: number;
}

/** What the budget counters hold now: agent runs this clock hour, tokens this UTC day. */
export interface LiveUsage {
  runsThisHour: number;
  tokensToday: number;
}

export interface RouteUsageRow extends Partial<LiveUsage> {
  route: string;
  /** The route's `budget:`; absent when it has none. */
  budget?: RouteBudget;
  stored: JobSums;
}

export interface UsageReport {
  /** The period's start (ms since the epoch): jobs received since then are summed. */
  since: number;
  /** How many stored jobs were summed, and whether that is all of the period (false: the newest USAGE_SCAN_LIMIT only). */
  jobsRead: number;
  complete: boolean;
  /** Whether runsThisHour and tokensToday come from counters (false: nothing counted them here, e.g. the CLI on a memory store). */
  counted: boolean;
  routes: RouteUsageRow[];
  /** `agent.budget`, the limit on all routes together, when set. */
  globalBudget?: RouteBudget;
  /** The counters of all routes together (what agent.budget is compared with), when counted and not one route asked for. */
  all?: LiveUsage;
}

/** At most this many of the newest stored jobs are summed (done jobs are kept for 7 days). */
export const USAGE_SCAN_LIMIT = 10_000;
/** The period when none is given: the last day. */
export const DEFAULT_USAGE_PERIOD = '24h';

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * The start of a period, from a duration back from `now` (`30m`, `24h`, `7d`) or a point in time (ISO 8601);
 * a string saying what is accepted when it is neither.
 */
export function parseSince(text: string, now = Date.now()): number | { problem: string } {
  const duration = /^(\d+)([mhd])$/.exec(text.trim());
  if (duration) return now - Number(duration[1]) * UNIT_MS[duration[2]];
  const at = /^\d{4}-\d{2}-\d{2}/.test(text.trim()) ? Date.parse(text.trim()) : NaN;
  if (Number.isFinite(at)) return at;
  return { problem: `since must be a duration back from now such as 30m, 24h or 7d, or a time such as 2026-01-31T12:00:00Z (got '${text}')` };
}

function emptySums(): JobSums {
  return {
    jobs: 0,
    events: 0,
    agentRuns: 0,
    delivered: 0,
    silent: 0,
    skipped: 0,
    dead: 0,
    open: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
  };
}

function add(sums: JobSums, job: JobSummary & { answer?: string }): void {
  sums.jobs += 1;
  sums.events += eventCount(job);
  if (wasAnswered(job)) sums.agentRuns += 1;
  const outcome = jobOutcome(job);
  // A denied or expired approval, or a run a spend cap stopped, is counted among the jobs and their runs and tokens,
  // in no column of its own.
  if (outcome === 'denied' || outcome === 'expired' || outcome === 'budget_exceeded') return addTokens(sums, job);
  if (outcome) sums[outcome] += 1;
  else if (job.status === 'dead') sums.dead += 1;
  else sums.open += 1;
  addTokens(sums, job);
}

function addTokens(sums: JobSums, job: JobSummary): void {
  sums.inputTokens += job.usage?.inputTokens ?? 0;
  sums.outputTokens += job.usage?.outputTokens ?? 0;
  sums.cachedInputTokens += job.usage?.cachedInputTokens ?? 0;
  sums.cacheWriteTokens += job.usage?.cacheWriteTokens ?? 0;
  if (job.usage?.costUsd) sums.costUsd = (sums.costUsd ?? 0) + job.usage.costUsd;
}

/** Sums per route name over the jobs received since `since`. */
export function sumJobs(jobs: JobSummary[], since: number): Map<string, JobSums> {
  const out = new Map<string, JobSums>();
  for (const job of jobs) {
    if (job.receivedAt < since) continue;
    let sums = out.get(job.route);
    if (!sums) out.set(job.route, (sums = emptySums()));
    add(sums, job);
  }
  return out;
}

/** The newest stored jobs received since `since` (of one route, or all), at most USAGE_SCAN_LIMIT; whether that is all of them. */
export async function storedJobsSince(
  jobs: Pick<JobQueue, 'list' | 'listSummaries'>,
  since: number,
  route?: string,
): Promise<{ jobs: JobSummary[]; complete: boolean }> {
  // Summaries: the sums read no payload, and 10,000 stored payloads would fill the heap.
  const listed = await listJobSummaries(jobs, { route, limit: USAGE_SCAN_LIMIT });
  const recent = listed.filter((job) => job.receivedAt >= since);
  return { jobs: recent, complete: listed.length < USAGE_SCAN_LIMIT || recent.length < listed.length };
}

/**
 * One row per route: the routes served (in their order) and any other route that has jobs in the period (a
 * removed subscription), each with its budget, its counters when `live` reads them, and its stored sums.
 */
export async function usageReport(input: {
  routes: Array<{ name: string; budget?: RouteBudget }>;
  jobs: JobSummary[];
  since: number;
  complete: boolean;
  /** The one route asked for: no other route gets a row, and no sum of all routes is read. */
  onlyRoute?: string;
  globalBudget?: RouteBudget;
  live?: (route: string) => Promise<LiveUsage>;
}): Promise<UsageReport> {
  const sums = sumJobs(
    input.jobs.filter((job) => input.onlyRoute === undefined || job.route === input.onlyRoute),
    input.since,
  );
  const names = new Map(input.routes.map((route) => [route.name, route.budget]));
  for (const name of [...sums.keys()].sort()) if (!names.has(name)) names.set(name, undefined);
  const routes = await Promise.all(
    [...names].map(async ([route, budget]): Promise<RouteUsageRow> => {
      const live = input.live ? await input.live(route) : undefined;
      return { route, ...(budget ? { budget } : {}), ...live, stored: sums.get(route) ?? emptySums() };
    }),
  );
  return {
    since: input.since,
    jobsRead: input.jobs.length,
    complete: input.complete,
    counted: input.live !== undefined,
    routes,
    ...(input.globalBudget ? { globalBudget: input.globalBudget } : {}),
    ...(input.live && input.onlyRoute === undefined ? { all: await input.live(ALL_ROUTES) } : {}),
  };
}

/** "12/20 runs this hour" against a limit, "12 runs this hour" without one, "?/20" when nothing counted; `what` may be left out. */
export function againstLimit(used: number | undefined, limit: number | undefined, what?: string): string {
  const figure =
    used === undefined ? (limit === undefined ? '-' : `?/${tokenCount(limit)}`) : `${tokenCount(used)}${limit === undefined ? '' : `/${tokenCount(limit)}`}`;
  return what ? `${figure} ${what}` : figure;
}
