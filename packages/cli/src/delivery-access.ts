// Where the `deliveries` commands read and act: the running gateway's admin API when it serves one (admin.enabled,
// found through gateway.run.json), so that a memory store is visible and a replay or retry starts at once; the
// store itself otherwise (the gateway stopped, or the API is off). Each profile has a store of its own; the admin
// API (one for every profile the gateway hosts) is asked about one with `?profile=<name>`, or all without it.
import { HookwiseError, errorMessage, type Job, type JobFilter, type Store } from '@hookwise/core';
import {
  adminApiEnabled,
  budgetOf,
  ConversationRecords,
  conversationOfJob,
  type ConversationView,
  listProfiles,
  loadConfig,
  readRunFile,
  replayJob,
  retryDeadLetters,
  routeUsage,
  storedJobsSince,
  usageReport,
  type UsageReport,
} from '@hookwise/gateway';
import { findDelivery, storeHasData, withDeliveryStore } from './delivery-store';
import { chooseProfile, loadChosen, profileName, type ProfileChoice } from './profile-choice';
import { listRoutes } from './route-listing';

/** A job with the profile it belongs to: the admin API names it; read from a store, the CLI adds it. */
export type ProfiledJob = Job & { profile?: string };

export interface Deliveries {
  /** Where they come from: the admin API's address, or 'store'. */
  readonly via: string;
  list(filter: JobFilter): Promise<Job[]>;
  /** By delivery id or job id, whole or a unique prefix of 4 or more characters. */
  find(id: string): Promise<Job>;
  /** The conversation the job is part of, from the records; undefined for none. */
  conversation(job: Job): Promise<ConversationView | undefined>;
  /** Runs an event again as a new job (a delivery id of its own); returns the new job. */
  replay(original: Job): Promise<Job>;
  /** Puts the dead letters (of a route, or all) back in the queue; returns their delivery ids. */
  retryDead(route?: string): Promise<string[]>;
  /**
   * Retries one ended job: a dead letter goes back to the queue at the step where it failed (`retried`); a done job
   * (delivered, denied, expired, skipped) runs again as a new job (`replayed`, as replay does). A job still in the
   * queue is an error: it has not ended.
   */
  retry(job: Job): Promise<{ how: 'retried' | 'replayed'; job: Job }>;
  /**
   * Per route: the budget counters and limits, and sums over the stored jobs received since `since` (as GET
   * /api/usage); `stored: false` reads the counters only (the sums stay empty).
   */
  usage(since: number, route?: string, options?: { stored?: boolean }): Promise<UsageReport>;
}

const PROBE_TIMEOUT_MS = 2000;
const REQUEST_TIMEOUT_MS = 30_000;
const PREFIX_SCAN_LIMIT = 500;

function storeDeliveries(store: Store, choice: ProfileChoice): Deliveries {
  return {
    via: 'store',
    list: (filter) => store.jobs.list(filter),
    find: (id) => findDelivery(store, id),
    // Without memos in the store (memory), conversations live in the gateway's process only.
    conversation: async (job) => (store.memos ? conversationOfJob(new ConversationRecords(store.memos), job) : undefined),
    replay: (original) => replayJob(store.jobs, original),
    retryDead: (route) => retryDeadLetters(store.jobs, route),
    async retry(job) {
      if (job.status === 'dead') {
        if (!(await store.jobs.retryDead(job.id))) throw notEnded((await store.jobs.get(job.id)) ?? job);
        return { how: 'retried', job: (await store.jobs.get(job.id)) ?? job };
      }
      if (job.status !== 'done') throw notEnded(job);
      return { how: 'replayed', job: await replayJob(store.jobs, job) };
    },
    async usage(since, route, options) {
      // The routes and budgets as config.yaml and the subscriptions say now (what a gateway started now would serve).
      const loaded = loadChosen(choice);
      const { config } = loaded;
      const routes = listRoutes(loaded)
        .filter((r) => r.status === 'active' && (route === undefined || r.name === route))
        .map((r) => ({ name: r.name, budget: r.route?.budget }));
      const { counters } = store;
      return usageReport({
        routes,
        ...(options?.stored === false ? { jobs: [], complete: true } : await storedJobsSince(store.jobs, since, route)),
        since,
        onlyRoute: route,
        globalBudget: budgetOf(config.agent.budget),
        live: counters ? (name) => routeUsage(counters, name) : undefined,
      });
    },
  };
}

/** A job that has not ended is not retried: it runs (or waits) already. */
function notEnded(job: Job): HookwiseError {
  return new HookwiseError(
    'HW_E_STORE',
    `delivery '${job.deliveryId}' is ${job.status}: it has not ended, so there is nothing to retry (\`hookwise deliveries show ${job.deliveryId}\` shows where it is)`,
  );
}

class AdminApiError extends HookwiseError {
  constructor(
    readonly httpStatus: number,
    message: string,
  ) {
    super('HW_E_STORE', message);
  }
}

/**
 * The admin API of a running gateway, as the dashboard uses it; a bearer token when admin.token is set. Every
 * request names the profile (`default` for the config dir's own routes); none: every profile's (list only).
 */
class ApiDeliveries implements Deliveries {
  constructor(
    readonly via: string,
    private readonly token: string | undefined,
    private readonly profile: string | undefined,
  ) {}

  async request<T>(method: 'GET' | 'POST', path: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<T> {
    const url = new URL(`${this.via}${path}`);
    if (this.profile !== undefined) url.searchParams.set('profile', this.profile);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    // Without a token (loopback mode) an action must carry the CSRF header, which no other site's page can send.
    else if (method === 'POST') headers['x-hookwise-csrf'] = 'hookwise-cli';
    const res = await fetch(url, { method, headers, signal: AbortSignal.timeout(timeoutMs) });
    const body = (await res.json().catch(() => ({}))) as T & { error?: string };
    if (!res.ok) throw new AdminApiError(res.status, `the gateway's admin API (${this.via}) answered ${res.status}: ${body.error ?? res.statusText}`);
    return body;
  }

  async list(filter: JobFilter): Promise<Job[]> {
    const query = new URLSearchParams({ full: '1' });
    if (filter.status) query.set('status', filter.status);
    if (filter.route) query.set('route', filter.route);
    if (filter.limit) query.set('limit', String(Math.min(filter.limit, 500)));
    return (await this.request<{ deliveries: Job[] }>('GET', `/api/deliveries?${query}`)).deliveries;
  }

  async find(id: string): Promise<Job> {
    try {
      return (await this.request<{ delivery: Job }>('GET', `/api/deliveries/${encodeURIComponent(id)}`)).delivery;
    } catch (err) {
      if (!(err instanceof AdminApiError && err.httpStatus === 404)) throw err;
    }
    // As with the store: a unique prefix of a delivery id or job id names it.
    const matches =
      id.length >= 4 ? (await this.list({ limit: PREFIX_SCAN_LIMIT })).filter((job) => job.deliveryId.startsWith(id) || job.id.startsWith(id)) : [];
    if (matches.length === 1) return matches[0];
    if (matches.length > 1) {
      const shown = matches.slice(0, 5).map((job) => job.deliveryId);
      throw new HookwiseError(
        'HW_E_STORE',
        `'${id}' is the start of ${matches.length} delivery ids (${shown.join(', ')}${matches.length > shown.length ? ', ...' : ''}): give more of it`,
      );
    }
    throw new HookwiseError(
      'HW_E_STORE',
      `no delivery '${id}' in the running gateway (${this.via}): see \`hookwise deliveries list\` (done jobs are kept for 7 days; an id may be shortened to a unique prefix of 4 or more characters)`,
    );
  }

  async conversation(job: Job): Promise<ConversationView | undefined> {
    const body = await this.request<{ conversation?: ConversationView | null }>('GET', `/api/deliveries/${encodeURIComponent(job.id)}`);
    return body.conversation ?? undefined;
  }

  async replay(original: Job): Promise<Job> {
    const made = await this.request<{ delivery: { id: string } }>('POST', `/api/deliveries/${encodeURIComponent(original.id)}/replay`);
    return (await this.request<{ delivery: Job }>('GET', `/api/deliveries/${encodeURIComponent(made.delivery.id)}`)).delivery;
  }

  async retryDead(route?: string): Promise<string[]> {
    return (await this.request<{ retried: string[] }>('POST', `/api/dead-letters/retry${route ? `?route=${encodeURIComponent(route)}` : ''}`)).retried;
  }

  async retry(job: Job): Promise<{ how: 'retried' | 'replayed'; job: Job }> {
    if (job.status === 'dead') {
      await this.request('POST', `/api/deliveries/${encodeURIComponent(job.id)}/retry`);
      return { how: 'retried', job: await this.find(job.id) };
    }
    if (job.status !== 'done') throw notEnded(job);
    return { how: 'replayed', job: await this.replay(job) };
  }

  async usage(since: number, route?: string, options?: { stored?: boolean }): Promise<UsageReport> {
    const query = new URLSearchParams({ since: new Date(since).toISOString() });
    if (route) query.set('route', route);
    if (options?.stored === false) query.set('stored', '0');
    return (await this.request<{ usage: UsageReport }>('GET', `/api/usage?${query}`)).usage;
  }
}

/**
 * The running gateway's admin API, if this config turns it on and the gateway answers; undefined to use the store.
 * A gateway that refuses the CLI (a token that does not match) is an error, not a reason to read around it.
 */
async function runningApi(rootDir: string, profile: string | undefined): Promise<ApiDeliveries | undefined> {
  // The admin block and the run file are the whole gateway's: the config dir's own, whatever the profile.
  const { config } = loadConfig({ configDir: rootDir });
  if (!adminApiEnabled(config)) return undefined;
  const running = readRunFile(rootDir);
  if (!running) return undefined;
  const api = new ApiDeliveries(running.url, config.admin?.token, profile);
  try {
    await api.request('GET', '/api/', PROBE_TIMEOUT_MS);
    return api;
  } catch (err) {
    if (err instanceof AdminApiError && (err.httpStatus === 401 || err.httpStatus === 403)) {
      throw new HookwiseError('HW_E_STORE', `${err.message}; the CLI sends admin.token from config.yaml (or nothing, from loopback, when it is unset)`);
    }
    // Not listening (stopped meanwhile), or started before admin.enabled was set: the store answers instead.
    if (process.env.HOOKWISE_DEBUG) process.stderr.write(`admin API at ${running.url} not usable (${errorMessage(err)}); reading the store\n`);
    return undefined;
  }
}

/** Runs `use` against the running gateway's admin API when there is one, else against the profile's store. */
export async function withDeliveries<T>(choice: ProfileChoice, use: (deliveries: Deliveries) => Promise<T>): Promise<T> {
  const api = await runningApi(choice.rootDir, profileName(choice));
  if (api) return use(api);
  return withDeliveryStore(choice, (store) => use(storeDeliveries(store, choice)));
}

/**
 * As withDeliveries for commands that only add what they find (`routes list`): undefined instead of opening a store
 * that has nothing to read (memory) or does not exist yet (opening would create it).
 */
export async function withExistingDeliveries<T>(choice: ProfileChoice, use: (deliveries: Deliveries) => Promise<T>): Promise<T | undefined> {
  const api = await runningApi(choice.rootDir, profileName(choice));
  if (api) return use(api);
  const loaded = loadChosen(choice);
  if (!storeHasData(loaded.config, loaded.configDir)) return undefined;
  return withDeliveryStore(choice, (store) => use(storeDeliveries(store, choice)));
}

/**
 * The jobs of every profile, newest first: one admin API request without a profile, or each profile's store in
 * turn (the default profile's first), each job named with its profile.
 */
export async function listAllProfiles(rootDir: string, filter: JobFilter): Promise<ProfiledJob[]> {
  const api = await runningApi(rootDir, undefined);
  if (api) return api.list(filter);
  const jobs: ProfiledJob[] = [];
  for (const profile of [undefined, ...listProfiles(rootDir)]) {
    const choice = chooseProfile(rootDir, profile);
    const loaded = loadChosen(choice);
    if (!storeHasData(loaded.config, loaded.configDir)) continue;
    const listed = await withDeliveryStore(choice, (store) => store.jobs.list(filter));
    jobs.push(...listed.map((job) => ({ ...job, profile: profileName(choice) })));
  }
  jobs.sort((a, b) => b.receivedAt - a.receivedAt);
  return filter.limit === undefined ? jobs : jobs.slice(0, filter.limit);
}
