// Dynamic subscriptions: the layout of `<config_dir>/webhook_subscriptions.json`, its validation, and the
// RouteSource that the running gateway re-reads whenever the file changes (no restart needed).
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'winston';
import { describeSchemaError } from '../config/load';
import type { BudgetConfig, CoalesceConfig, DeliverConfig, FilterConfig, RouteConfig } from '../config/schema';
import { compileFilter } from '../filters/filters';
import { HookwiseError, errorMessage } from '@hookwise/core';
import { validateSubscriptionEntry } from '../generated/subscription-validator';
import { invalidRouteNameMessage, isValidRouteName, secretList, toRoute, type Route, type RouteDefaults, type RouteSource } from './routes';
import type { TransformConfig } from '../config/transform-schema';

export const SUBSCRIPTIONS_FILE = 'webhook_subscriptions.json';

/** One entry of the subscriptions file: a route plus its description and timestamps. */
export interface SubscriptionEntry {
  description?: string;
  events: string[];
  /** The secret, or `secrets` while a rotation is under way (`webhook subscribe --rotate-secret`). */
  secret?: string;
  secrets?: string[];
  source?: string;
  source_options?: Record<string, unknown>;
  prompt?: string;
  skills: string[];
  /** One deliverer id, or a list of destinations (fan-out, `--deliver a,b`). */
  deliver: DeliverConfig;
  deliver_extra: Record<string, string>;
  /** Payload tests, coalescing, serial runs, spend limits and the silent marker: as on a static route (docs/filters.md). */
  filter?: FilterConfig;
  coalesce?: CoalesceConfig;
  concurrency_key?: string;
  budget?: BudgetConfig;
  silent_marker?: string;
  /** As on a static route (docs/configuration.md): no agent run; and the payload's transform. */
  deliver_only?: boolean;
  transform?: TransformConfig;
  /**
   * Set when an agent run made the entry through its job channel: the route and job of that run. `adopted_at` is
   * when the operator kept the agent's settings (`hookwise webhook subscribe <name> --keep-agent-settings`); from
   * then on no agent run may change it.
   */
  created_by?: SubscriptionMaker;
  /** ISO 8601 timestamps. */
  created_at: string;
  updated_at: string;
}

/** Who made an entry, when an agent run did (SubscriptionEntry.created_by). */
export interface SubscriptionMaker {
  route: string;
  job: string;
  adopted_at?: string;
}

/** The whole file: an object keyed by route name. */
export type SubscriptionEntries = Record<string, SubscriptionEntry>;

export function subscriptionsPath(configDir: string): string {
  return join(configDir, SUBSCRIPTIONS_FILE);
}

/** Problems of one entry, each naming the subscription; empty when the entry can serve requests. */
export function subscriptionProblems(name: string, entry: unknown, defaults: RouteDefaults | string = {}): string[] {
  const fallback = typeof defaults === 'string' ? { secrets: [defaults] } : defaults;
  const where = `subscription '${name}'`;
  const problems: string[] = [];
  if (!isValidRouteName(name)) problems.push(`${where}: ${invalidRouteNameMessage(name)}`);
  // subscriptionEntrySchema's validator, generated ahead of time (scripts/gen-validators.js): no ajv at run time.
  if (!validateSubscriptionEntry(entry)) {
    for (const error of validateSubscriptionEntry.errors ?? []) problems.push(`${where}: ${describeSchemaError(error).replace(/^\(root\): /, '')}`);
    return problems;
  }
  // What the schema cannot say: one operator per test, regular expressions and JSONata that compile.
  const { filter } = entry as RouteConfig;
  if (filter !== undefined) problems.push(...compileFilter(filter, `${where} filter`).problems);
  // Without any secret the HMAC key would be empty, which anyone can sign with: refuse instead.
  if (secretList(entry as RouteConfig).length === 0 && !fallback.secrets?.length) {
    problems.push(`${where} has no secret: re-create it with \`hookwise webhook subscribe ${name}\` or set platforms.webhook.extra.secret`);
  }
  return problems;
}

/** Parses the file text strictly (the CLI uses this before it writes, so a broken file is never overwritten). */
export function parseSubscriptionsText(text: string, file: string): SubscriptionEntries {
  let data: unknown;
  try {
    data = text.trim() === '' ? {} : JSON.parse(text);
  } catch (err) {
    throw new HookwiseError('HW_E_SUBSCRIPTIONS', `${file} does not parse (${errorMessage(err)}): fix the JSON or move the file away`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new HookwiseError('HW_E_SUBSCRIPTIONS', `${file} must hold a JSON object keyed by route name: fix it or move the file away`);
  }
  return data as SubscriptionEntries;
}

/** Reads the file; a file that does not exist means no subscriptions. */
export function readSubscriptions(configDir: string): SubscriptionEntries {
  const file = subscriptionsPath(configDir);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new HookwiseError('HW_E_SUBSCRIPTIONS', `cannot read ${file}: ${errorMessage(err)}`, { cause: err });
  }
  return parseSubscriptionsText(text, file);
}

export interface SubscriptionSourceOptions {
  configDir: string;
  /** Fallback for entries without their own secret (hand-written ones). */
  /** The global secret (older callers); `defaults` takes the global secrets and source. */
  globalSecret?: string;
  defaults?: RouteDefaults;
  logger: Logger;
  /**
   * Further checks per route, e.g. `(route) => gateway.routeProblems(route)` (deliverer, skills, runner,
   * INSECURE_NO_AUTH on a public interface); a route with problems is skipped with a warning.
   */
  check?: (route: Route) => string[];
}

/**
 * The subscriptions as a RouteSource. `current()` costs one stat per call and re-reads the file only when
 * its mtime, size or inode changed, so a subscription works on the next request and an unchanged file is
 * never parsed twice. Problems are logged once per change of the file, never per request.
 */
export class SubscriptionSource implements RouteSource {
  readonly file: string;
  private routes: ReadonlyMap<string, Route> = new Map();
  /** Stat signature of the file version last read; 'missing' when there is none. */
  private version?: string;

  private readonly defaults: RouteDefaults;

  constructor(private options: SubscriptionSourceOptions) {
    this.file = subscriptionsPath(options.configDir);
    this.defaults = options.defaults ?? { secrets: options.globalSecret ? [options.globalSecret] : [] };
  }

  /**
   * Sets the per-route check once the gateway exists (it is built after its route source), e.g.
   * `source.setCheck((route) => gateway.routeProblems(route))`; the file is read again with the new check.
   */
  setCheck(check: (route: Route) => string[]): void {
    this.options = { ...this.options, check };
    this.version = undefined;
  }

  current(): ReadonlyMap<string, Route> {
    const version = this.statVersion();
    if (version !== this.version) {
      this.version = version;
      this.reload(version);
    }
    return this.routes;
  }

  private statVersion(): string {
    try {
      const stat = statSync(this.file);
      return `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : `error:${code ?? errorMessage(err)}`;
    }
  }

  private reload(version: string): void {
    const { logger } = this.options;
    if (version === 'missing') {
      if (this.routes.size) logger.info(`${this.file} was removed: no subscriptions are active`);
      this.routes = new Map();
      return;
    }
    let entries: SubscriptionEntries;
    try {
      const text = readFileSync(this.file, 'utf8');
      // An empty file is what a failed or half-done write leaves (a full disk, an editor's truncate): it would
      // drop every subscription without a word. No subscriptions is written as `{}`.
      if (text.trim() === '') throw new HookwiseError('HW_E_SUBSCRIPTIONS', `${this.file} is empty: restore it (or write {} for no subscriptions)`);
      entries = parseSubscriptionsText(text, this.file);
    } catch (err) {
      logger.error(`${errorMessage(err)}; the ${this.routes.size} subscription(s) read before stay active until the file is fixed`);
      return;
    }
    const routes = new Map<string, Route>();
    for (const [name, entry] of Object.entries(entries)) {
      let problems = subscriptionProblems(name, entry, this.defaults);
      const route = problems.length ? undefined : toRoute(name, entry as RouteConfig, 'subscription', this.defaults);
      if (route && (entry as RouteConfig).enabled === false) continue;
      if (route && this.options.check) problems = this.options.check(route);
      if (route && !problems.length) routes.set(name, route);
      else logger.warn(`skipping ${problems.join('; ')}`, { file: this.file });
    }
    this.routes = routes;
  }
}

/** The dynamic route source the server plugs into its route table (see packages/server/src/start.ts). */
export function createSubscriptionSource(options: SubscriptionSourceOptions): SubscriptionSource {
  return new SubscriptionSource(options);
}
