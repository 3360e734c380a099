// Where the `deliveries` commands read and act: the running gateway's admin API when it serves one (admin.enabled,
// found through gateway.run.json), so that a memory store is visible and a replay or retry starts at once; the
// store itself otherwise (the gateway stopped, or the API is off).
import { HookwiseError, errorMessage, type Job, type JobFilter, type Store } from '@hookwise/core';
import {
  adminApiEnabled,
  budgetOf,
  ConversationRecords,
  conversationOfJob,
  type ConversationView,
  loadConfig,
  readRunFile,
  replayJob,
  retryDeadLetters,
  routeUsage,
  storedJobsSince,
  usageReport,
  type UsageReport,
} from '@hookwise/gateway';
import { configDirFrom } from './config-dir';
import { findDelivery, storeHasData, withDeliveryStore } from './delivery-store';
import { listRoutes } from './route-listing';

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

function storeDeliveries(store: Store, configDir: string): Deliveries {
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
      const { config } = loadConfig({ configDir });
      const routes = listRoutes(config, configDir)
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

/** The admin API of a running gateway, as the dashboard uses it; a bearer token when admin.token is set. */
class ApiDeliveries implements Deliveries {
  constructor(
    readonly via: string,
    private readonly token: string | undefined,
  ) {}

  async request<T>(method: 'GET' | 'POST', path: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    // Without a token (loopback mode) an action must carry the CSRF header, which no other site's page can send.
    else if (method === 'POST') headers['x-hookwise-csrf'] = 'hookwise-cli';
    const res = await fetch(`${this.via}${path}`, { method, headers, signal: AbortSignal.timeout(timeoutMs) });
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
async function runningApi(configDir: string): Promise<ApiDeliveries | undefined> {
  const { config } = loadConfig({ configDir });
  if (!adminApiEnabled(config)) return undefined;
  const running = readRunFile(configDir);
  if (!running) return undefined;
  const api = new ApiDeliveries(running.url, config.admin?.token);
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

/** Runs `use` against the running gateway's admin API when there is one, else against the configured store. */
export async function withDeliveries<T>(configDirFlag: string | undefined, use: (deliveries: Deliveries) => Promise<T>): Promise<T> {
  const api = await runningApi(configDirFrom(configDirFlag));
  if (api) return use(api);
  return withDeliveryStore(configDirFlag, (store) => use(storeDeliveries(store, configDirFrom(configDirFlag))));
}

/**
 * As withDeliveries for commands that only add what they find (`routes list`): undefined instead of opening a store
 * that has nothing to read (memory) or does not exist yet (opening would create it).
 */
export async function withExistingDeliveries<T>(configDirFlag: string | undefined, use: (deliveries: Deliveries) => Promise<T>): Promise<T | undefined> {
  const configDir = configDirFrom(configDirFlag);
  const api = await runningApi(configDir);
  if (api) return use(api);
  if (!storeHasData(loadConfig({ configDir }).config, configDir)) return undefined;
  return withDeliveryStore(configDirFlag, (store) => use(storeDeliveries(store, configDir)));
}
