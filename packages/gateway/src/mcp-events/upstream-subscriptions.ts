// Routes with `source: mcp-events` take their events from another MCP Events server: the gateway subscribes by
// webhook to the upstream's event type with the route's own URL as the callback, keeps the subscription (id,
// secret, expiry) in the store's memos so that a restart and the other gateways on the store go on with it,
// refreshes it once half its TTL is gone, and gives the route the subscription's secret, with which the mcp-events
// source plugin verifies each delivery. The route's secret cannot come from config: it exists once subscribed.
// What it sends is what both readings of the Events design accept (upstream-protocol.ts): `arguments` always, a
// secret of its own in `delivery.secret` (kept; a server that makes its own answers it and that one is used),
// `ttlMs` and `ttl`; a refresh is the same subscribe again (the same key), with the `subscriptionId` when the
// server gave one.
import type { Logger } from 'winston';
import { errorMessage, type MemoKV } from '@hookwise/core';
import { loadMcpClientSdk } from '../plugins/mcp-sdk';
import { isNotFound, readSubscribed, subscribeParams, upstreamError, upstreamSecret } from './upstream-protocol';
import type { Route, RouteTable } from '../routes/routes';

export const MCP_EVENTS_SOURCE = 'mcp-events';
const DEFAULT_TTL_SECONDS = 3600;
/** Wait after a failed subscribe, doubled up to the last. */
const RETRY_MS = [2000, 5000, 15_000, 60_000];

interface UpstreamOptions {
  server?: string;
  event?: string;
  arguments?: Record<string, unknown>;
  token_env?: string;
  ttl_seconds?: number;
  callback_url?: string;
}

/** What the store keeps of a route's upstream subscription. */
export interface Held {
  id: string;
  secret: string;
  expiresAt: number;
  /** What it was made for: another server, type or callback is a new subscription. */
  for: string;
  /** The TTL the upstream granted, in ms (it may hold the asked one within its own bounds). */
  ttlMs?: number;
  /**
   * Whether the upstream named the subscription `subscriptionId` (SEP-3415's text; sent back on refresh) or `id`
   * (the design sketch's, derived from the key; a refresh is the same subscribe). Absent in records stored before
   * this field: those came from servers that answered subscriptionId.
   */
  idField?: 'subscriptionId' | 'id';
}

export interface UpstreamDeps {
  routes: RouteTable;
  memos: MemoKV;
  env: NodeJS.ProcessEnv;
  /** platforms.webhook.extra.public_url. */
  publicUrl?: string;
  /** The path before `/webhooks/<route>`: `/p/<name>` on a profile's gateway, '' on the default's. */
  webhookPrefix: string;
  logger: Logger;
  /** How often each route's subscription is looked at (default 15 s). */
  checkMs?: number;
  now?: () => number;
}

const memoKey = (route: string) => `mcp-events:upstream:${route}`;

/** A route's upstream subscription as the store keeps it (what `hookwise mcp subscriptions` lists). */
export async function readUpstream(memos: MemoKV, route: string): Promise<Held | undefined> {
  const text = await memos.get(memoKey(route));
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as Held;
  } catch {
    return undefined;
  }
}
const optionsOf = (route: Route) => (route.sourceOptions ?? {}) as UpstreamOptions;

/** The routes whose events come from an MCP Events server. */
export function upstreamRoutes(routes: RouteTable): Route[] {
  return routes.staticRoutes().filter((route) => route.source === MCP_EVENTS_SOURCE);
}

/** Startup problems of such routes: what the subscription needs and the config lacks. */
export function upstreamProblems(routes: RouteTable, env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  for (const route of upstreamRoutes(routes)) {
    const options = optionsOf(route);
    const where = `route '${route.name}' (source: mcp-events)`;
    if (!options.server) problems.push(`${where}: source_options.server is required: the upstream MCP server's URL, e.g. https://events.example.com/mcp`);
    if (!options.event) problems.push(`${where}: source_options.event is required: the upstream's event type to subscribe to`);
    if (route.secretOrigin === 'route')
      problems.push(`${where}: remove secret/secrets: the route verifies with its upstream subscription's secret, which the gateway gets when it subscribes`);
    if (options.token_env && !env[options.token_env])
      problems.push(`${where}: source_options.token_env names ${options.token_env}, which is not set (put the upstream's token in <config_dir>/.env)`);
  }
  return problems;
}

export class UpstreamSubscriptions {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly failures = new Map<string, number>();
  private readonly now: () => number;
  private stopped = false;
  private baseUrl = '';

  constructor(private readonly deps: UpstreamDeps) {
    this.now = deps.now ?? Date.now;
    // Such a route verifies with its subscriptions' secrets alone: never with the global fallback secret, which
    // other senders know. Until the first subscription, every delivery is refused.
    for (const route of upstreamRoutes(deps.routes)) {
      route.secrets = [];
      route.secret = undefined;
    }
  }

  /** Called once the gateway listens at `url`: subscribes each route (in the background) and keeps it subscribed. */
  listening(url: string): void {
    const routes = upstreamRoutes(this.deps.routes);
    if (routes.length === 0 || this.stopped) return;
    this.baseUrl = (this.deps.publicUrl ?? url).replace(/\/+$/, '');
    if (!this.deps.publicUrl && routes.some((route) => !optionsOf(route).callback_url))
      this.deps.logger.warn(
        `mcp-events routes: no platforms.webhook.extra.public_url, so the upstream servers are given ${this.baseUrl}${this.deps.webhookPrefix}/webhooks/<route> as the callback; set public_url (or source_options.callback_url) to the address they can reach`,
      );
    for (const route of routes) this.schedule(route, 0);
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private schedule(route: Route, delayMs: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      void this.keep(route).then((next) => this.schedule(route, next));
    }, delayMs);
    timer.unref();
    this.timers.set(route.name, timer);
  }

  /** One look at a route's subscription: subscribe or refresh when due, else take the stored secret. Returns the next look's delay. */
  private async keep(route: Route): Promise<number> {
    const checkMs = this.deps.checkMs ?? 15_000;
    const options = optionsOf(route);
    const ttlMs = (options.ttl_seconds ?? DEFAULT_TTL_SECONDS) * 1000;
    const callback = options.callback_url ?? `${this.baseUrl}${this.deps.webhookPrefix}/webhooks/${encodeURIComponent(route.name)}`;
    const made = JSON.stringify([options.server, options.event, callback, options.arguments ?? null]);
    try {
      const stored = await readUpstream(this.deps.memos, route.name);
      const held = stored && stored.for === made && stored.expiresAt > this.now() ? stored : undefined;
      if (held && held.expiresAt - this.now() > (held.ttlMs ?? ttlMs) / 2) {
        // Fresh enough (this gateway's or another's on the same store): use its secret.
        this.useSecret(route, held.secret);
        return checkMs;
      }
      const answer = await this.subscribe(route, options, callback, held);
      const expiresAt = Date.parse(answer.expiresAt ?? '') || this.now() + (answer.ttlMs ?? ttlMs);
      const next: Held = {
        id: answer.id,
        secret: answer.secret,
        expiresAt,
        for: made,
        // The TTL granted: as the upstream said it, else as its expiry shows it.
        ttlMs: answer.ttlMs ?? Math.max(1000, expiresAt - this.now()),
        idField: answer.idField,
      };
      await this.deps.memos.set(memoKey(route.name), JSON.stringify(next));
      this.useSecret(route, next.secret);
      this.deps.logger.info(
        `route '${route.name}': ${held?.id === next.id ? 'refreshed' : 'subscribed to'} ${options.event} of ${options.server} (subscription ${next.id}, until ${new Date(next.expiresAt).toISOString()})`,
      );
      this.failures.delete(route.name);
      return checkMs;
    } catch (err) {
      const failed = (this.failures.get(route.name) ?? 0) + 1;
      this.failures.set(route.name, failed);
      const wait = RETRY_MS[Math.min(failed, RETRY_MS.length) - 1];
      const meaning = upstreamError(err);
      this.deps.logger.warn(
        `route '${route.name}': could not subscribe to ${options.event} of ${options.server} (${errorMessage(err)}${meaning ? `: ${meaning}` : ''}); trying again in ${wait / 1000} s`,
      );
      return Math.min(wait, Math.max(checkMs, 100));
    }
  }

  /** The route verifies with the new secret and, while deliveries signed before a change may still come, the one before. */
  private useSecret(route: Route, secret: string): void {
    if (route.secrets[0] === secret) return;
    // The previous subscription's secret stays second, for deliveries the upstream signed before the change.
    route.secrets = [secret, ...route.secrets.slice(0, 1)];
    route.secret = secret;
  }

  /**
   * events/subscribe on the upstream: a refresh when `held` lasts (the same key, with its id when the upstream
   * named it subscriptionId, and the same secret), a new subscription when the upstream forgot it.
   */
  private async subscribe(route: Route, options: UpstreamOptions, callback: string, held: Held | undefined) {
    const sdk = loadMcpClientSdk(`route '${route.name}' (source: mcp-events)`);
    const token = options.token_env ? this.deps.env[options.token_env] : undefined;
    const client = new sdk.client.Client({ name: 'hookwise', version: '1.0.0' });
    const transport = new sdk.http.StreamableHTTPClientTransport(new URL(options.server!), {
      requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : undefined,
    });
    try {
      await client.connect(transport);
      const secret = upstreamSecret(held?.secret);
      const ttlSeconds = options.ttl_seconds ?? DEFAULT_TTL_SECONDS;
      const params = subscribeParams({ event: options.event!, arguments: options.arguments, callback, secret, ttlSeconds });
      const ask = (withId?: string) =>
        client.request({ method: 'events/subscribe', params: withId ? { ...params, subscriptionId: withId } : params }, sdk.types.ResultSchema.passthrough());
      const withId = held && held.idField !== 'id' ? held.id : undefined;
      let answer: Record<string, unknown>;
      try {
        answer = await ask(withId);
      } catch (err) {
        if (!withId || !isNotFound(err)) throw err;
        answer = await ask(); // The upstream no longer knows it (expired, restarted on memory): a new one.
      }
      return readSubscribed(answer, secret);
    } finally {
      await client.close().catch(() => undefined);
    }
  }
}
