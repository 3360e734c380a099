// The gateway as an MCP Events server (SEP-3415, extension io.modelcontextprotocol/events): its routes are the
// event types (event-types.ts), the store's jobs are their durable history, and a client polls (`events/poll`) or
// holds a stream (`events/stream`) from an opaque cursor (event-cursor.ts). What a client gets of an event is the
// payload as stored, less the route's private fields and scrubbed of secrets (event-data.ts): never the request's
// headers, never a route's secret. Served at POST /mcp on the admin listener by @hookwise/server through
// events-mcp.ts.
import type http from 'node:http';
import type { Logger } from 'winston';
import { DEFAULT_JOBS_RETENTION_DAYS, type Job, type SourcePayloadSchema, type JobQueue, type JobSummary, type MemoKV, type Outbox } from '@hookwise/core';
import type { HookwiseConfig } from '../config/config-types';
import { retryPolicyOf } from '../config/retry-policy';
import type { CompiledFilter } from '../filters/filters';
import type { Lifecycle } from '../observe/lifecycle';
import type { OutboundScrubber } from '../observe/outbound-scrub';
import type { RouteTable } from '../routes/routes';
import { comparePositions, decodeCursor, encodeCursor, type EventPosition } from './event-cursor';
import { EventData, payloadSchemaOf, sourceSchemaOf, type EventOccurrence } from './event-data';
import { eventTypesOf, isTypeEvent, type EventType } from './event-types';
import { invalidParams, notFound } from './events-errors';
import { serveMcpEvents } from './events-mcp';
import type { EventsMethods } from './events-protocol';
import { watchEventList } from './list-changes';
import { McpClients, type McpClient } from './mcp-clients';
import { subscriberFilter } from './subscriber-filter';
import { WebhookBook } from './webhook-book';
import { WebhookDeliveries } from './webhook-deliveries';
import { WebhookSubscriptions, type SubscribeResult } from './webhook-subscriptions';
import { UpstreamSubscriptions, upstreamProblems, MCP_EVENTS_SOURCE } from './upstream-subscriptions';
import { mcpClientListing, mcpSubscriptionListing, type ListedMcpClient, type ListedMcpSubscription } from './mcp-listings';
import { DeliveryTally } from './delivery-tally';
import { replayEvents, type PostedEvent, type Replay } from './webhook-replay';

/**
 * An event is handed out only once it was received this long ago: a request received earlier may still be in its
 * filter or store step, and a cursor that passed its receipt time would skip it (an expression filter's deadline
 * is 1 s, a store's accept gives up after 50 ms).
 */
export const SETTLE_MS = 1500;
export const DEFAULT_MAX_EVENTS = 50;
export const MAX_EVENTS = 500;
/** Jobs read per poll at most (a subscriber's filter may drop many); more: `hasMore`. */
const MAX_EXAMINED = 1000;
export const NEXT_POLL_MS = 5000;
export const HEARTBEAT_MS = 15_000;

/** What an event type says about itself in `events/list`. */
export interface EventTypeDescriptor {
  name: string;
  description: string;
  delivery: Array<'poll' | 'push' | 'webhook'>;
  inputSchema: Record<string, unknown>;
  payloadSchema: Record<string, unknown>;
}

export type { EventOccurrence } from './event-data';

export interface PollResult {
  resultType: 'complete';
  events: EventOccurrence[];
  cursor: string;
  truncated: boolean;
  hasMore: boolean;
  nextPollMs: number;
}

/** The subscription arguments every type takes: the route filter language's declarative tests. */
const INPUT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    filter: {
      description:
        'Payload tests an event must pass to be delivered, in the route filter language (docs/filters.md): one test ({path, equals|not_equals|in|not_in|matches|exists|contains|missing}, or {not: test}), {any: [tests]}, or a list that must all hold. `event` names the event type; JSONata expressions, in_file and request headers are not offered.',
      anyOf: [{ type: 'object' }, { type: 'array', minItems: 1, items: { type: 'object' } }],
    },
  },
} as const;

export interface McpEventsDeps {
  config: HookwiseConfig;
  env: NodeJS.ProcessEnv;
  routes: RouteTable;
  jobs: JobQueue;
  lifecycle: Lifecycle;
  memos: MemoKV;
  outbox: Outbox;
  logger: Logger;
  /** The gateway's one exit for text: every occurrence's data passes it (event-data.ts). */
  outbound: Pick<OutboundScrubber, 'scrub' | 'scrubValue'>;
  /** The payload schema a source (by id, as a route pins it) declares, if any (SourceContribution.payloadSchema). */
  payloadSchemaOfSource?: (source: string) => SourcePayloadSchema | undefined;
  now?: () => number;
  /** How often webhook subscriptions are read from the store (default 5 s). */
  subscriptionsRefreshMs?: number;
  /** The path before `/webhooks/<route>` on the listener: `/p/<name>` for a profile's gateway, '' for the default's. */
  webhookPrefix?: string;
}

interface Subscription {
  type: EventType;
  filter?: CompiledFilter;
  from: EventPosition;
  truncated: boolean;
  maxEvents: number;
}

function positionOf(job: Pick<JobSummary, 'receivedAt' | 'id'>): EventPosition {
  return { t: job.receivedAt, id: job.id };
}

export class McpEvents implements EventsMethods {
  readonly clients: McpClients;
  private readonly now: () => number;
  private readonly retentionMs: number;
  private readonly book: WebhookBook;
  private readonly deliveries: WebhookDeliveries;
  private readonly webhooks: WebhookSubscriptions;
  private readonly upstream: UpstreamSubscriptions;
  private readonly tally: DeliveryTally;
  private readonly data: EventData;
  /** Whether this gateway delivers (started): only then are the tally's counts its subscriptions' history. */
  private started = false;

  constructor(private readonly deps: McpEventsDeps) {
    this.clients = new McpClients(deps.config.mcp, deps.env);
    this.now = deps.now ?? Date.now;
    this.retentionMs = (deps.config.store.retention?.jobs_days ?? DEFAULT_JOBS_RETENTION_DAYS) * 86_400_000;
    const settings = deps.config.mcp?.webhooks ?? {};
    const policy = { allowLoopback: settings.allow_loopback === true };
    this.data = new EventData(deps.outbound);
    this.book = new WebhookBook(deps.memos, this.now);
    this.tally = new DeliveryTally(this.now);
    this.deliveries = new WebhookDeliveries({
      ...{ book: this.book, outbox: deps.outbox, jobs: deps.jobs, routes: deps.routes, clients: this.clients, lifecycle: deps.lifecycle },
      ...{ logger: deps.logger, retry: retryPolicyOf(deps.config), policy, refreshMs: deps.subscriptionsRefreshMs, now: this.now, data: this.data },
    });
    this.webhooks = new WebhookSubscriptions({
      ...{ book: this.book, deliveries: this.deliveries, policy, maxPerClient: settings.max_per_client ?? 20, now: this.now, logger: deps.logger },
      typeOf: (client, params) => this.typeOf(client, params).type,
      cursorNow: () => encodeCursor({ t: this.now() - SETTLE_MS, id: '' }),
      replay: (client, params) => this.replayOf(client, params),
    });
    this.upstream = new UpstreamSubscriptions({
      ...{ routes: deps.routes, memos: deps.memos, env: deps.env, publicUrl: deps.config.platforms.webhook.extra.public_url, logger: deps.logger },
      webhookPrefix: deps.webhookPrefix ?? '',
      ...{ checkMs: deps.subscriptionsRefreshMs, now: this.now },
    });
  }

  /** Starts webhook delivery to the subscriptions in the store (when any client is configured). */
  async start(): Promise<void> {
    if (!this.enabled) return;
    this.tally.listen(this.deps.lifecycle);
    this.started = true;
    await this.deliveries.start();
  }

  /** The gateway listens at `url`: the `source: mcp-events` routes subscribe to their upstream servers now. */
  listening(url: string): void {
    this.upstream.listening(url);
  }

  async stop(): Promise<void> {
    this.tally.close();
    this.upstream.stop();
    await this.deliveries.close();
  }

  /** `events/subscribe` (webhook delivery; a known subscriptionId, or the same key, refreshes it). */
  subscribe(client: McpClient, params: Record<string, unknown>): Promise<SubscribeResult> {
    return this.webhooks.subscribe(client, params);
  }

  unsubscribe(client: McpClient, params: Record<string, unknown>): Promise<{ resultType: 'complete' }> {
    return this.webhooks.unsubscribe(client, params);
  }

  /** `hookwise mcp clients`: each client, whether its token is set (never the token), the types it is granted. */
  clientListing(): ListedMcpClient[] {
    return mcpClientListing(this.deps.config, this.deps.env);
  }

  /**
   * `hookwise mcp subscriptions`: the subscriptions in `memos` (the CLI passes the real store's), never a secret.
   * On a running gateway a client's webhook subscription also says how its deliveries went since the start.
   */
  async subscriptionListing(memos: MemoKV = this.deps.memos): Promise<ListedMcpSubscription[]> {
    const listed = await mcpSubscriptionListing(memos, this.deps.config, this.now());
    if (!this.started) return listed;
    return listed.map((s) => (s.kind === 'webhook' ? { ...s, deliveries: this.tally.of(s.id) } : s));
  }

  /** Whether there is anything of MCP Events to show: clients configured, or a route fed by another server. */
  get inUse(): boolean {
    return this.enabled || this.deps.routes.staticRoutes().some((route) => route.source === MCP_EVENTS_SOURCE);
  }

  /** Startup problems (a client's token missing or too short, a `source: mcp-events` route's missing options). */
  get problems(): string[] {
    return [...this.clients.problems, ...upstreamProblems(this.deps.routes, this.deps.env)];
  }

  /** Whether `mcp.clients` names any client: only then is /mcp served. */
  get enabled(): boolean {
    return this.clients.configured;
  }

  authenticate(authorization: string | undefined): McpClient | undefined {
    return this.clients.authenticate(authorization);
  }

  /** Answers one MCP request (the JSON body already read) of a client `authenticate` found. */
  serve(req: http.IncomingMessage, res: http.ServerResponse, body: unknown, client: McpClient): Promise<void> {
    return serveMcpEvents(req, res, body, this, client);
  }

  /** The event types this client may see, now (subscriptions come and go). */
  typesFor(client: McpClient): EventType[] {
    return eventTypesOf(this.deps.routes.all()).filter((type) => client.grant.allows(type));
  }

  list(client: McpClient): { resultType: 'complete'; events: EventTypeDescriptor[] } {
    return {
      resultType: 'complete',
      events: this.typesFor(client).map((type) => ({
        name: type.name,
        description: type.description,
        delivery: ['poll', 'push', 'webhook'],
        inputSchema: INPUT_SCHEMA,
        payloadSchema: this.payloadSchemaOf(type),
      })),
    };
  }

  /** A webhook subscribe's replay from its `cursor` (checked now), read up to when it runs; undefined without one. */
  private replayOf(client: McpClient, params: Record<string, unknown>): (() => Promise<Replay>) | undefined {
    if (params.cursor === undefined || params.cursor === null) return undefined;
    const start = this.begin(client, { ...params, maxEvents: MAX_EVENTS });
    return (until = this.now()) => replayEvents(start, (from) => this.read({ ...start, from }, until));
  }

  /** What `data` holds on this type: its source's schema (or any object), less the route's private fields. */
  private payloadSchemaOf(type: EventType): Record<string, unknown> {
    const route = this.deps.routes.get(type.route);
    const declared = route?.source === undefined ? undefined : this.deps.payloadSchemaOfSource?.(route.source);
    return payloadSchemaOf(route, sourceSchemaOf(route, type.event, declared));
  }

  /** `events/poll`: the events after the cursor that pass the subscriber's filter, oldest first. */
  async poll(client: McpClient, params: Record<string, unknown>): Promise<PollResult> {
    const subscription = this.begin(client, params);
    const batch = await this.read(subscription);
    return {
      resultType: 'complete',
      events: batch.events.map(({ cursor: _cursor, ...occurrence }) => occurrence),
      cursor: encodeCursor(batch.position),
      truncated: subscription.truncated,
      hasMore: batch.hasMore,
      nextPollMs: NEXT_POLL_MS,
    };
  }

  /**
   * `events/stream`: confirms with `active`, sends what is past the cursor, then every new event as it settles
   * (woken by the lifecycle's `accepted` events of the type's route), a heartbeat with the cursor in quiet times,
   * and list_changed when the client's types change; ends when `signal` aborts (the client closed the request).
   */
  async stream(
    client: McpClient,
    params: Record<string, unknown>,
    send: (method: string, params: Record<string, unknown>) => Promise<void>,
    signal: AbortSignal,
  ): Promise<void> {
    const subscription = this.begin(client, params);
    await send('notifications/events/active', { cursor: encodeCursor(subscription.from), truncated: subscription.truncated });
    let wake: (() => void) | undefined;
    /** A nudge came while no one waited (a read was running): the next wait ends at once. */
    let woken = false;
    let due: NodeJS.Timeout | undefined;
    let dueAt = Infinity;
    /** The next read in `delayMs` at the latest (an earlier nudge wins over a later one). */
    const nudge = (delayMs: number) => {
      const at = this.now() + delayMs;
      if (due && dueAt <= at) return;
      if (due) clearTimeout(due);
      dueAt = at;
      due = setTimeout(() => {
        due = undefined;
        dueAt = Infinity;
        if (wake) wake();
        else woken = true;
      }, delayMs);
    };
    const stop = this.deps.lifecycle.on('accepted', (event) => {
      if (event.route === subscription.type.route) nudge(Math.max(0, event.receivedAt + SETTLE_MS + 10 - this.now()));
    });
    const heartbeat = setInterval(
      () => void send('notifications/events/heartbeat', { cursor: encodeCursor(subscription.from) }).catch(() => undefined),
      HEARTBEAT_MS,
    );
    const stopListWatch = watchEventList(() => this.typesFor(client).map((type) => type.name), send);
    try {
      while (!signal.aborted) {
        const batch = await this.read(subscription);
        for (const occurrence of batch.events) await send('notifications/events/event', { ...occurrence });
        subscription.from = batch.position;
        if (batch.hasMore) continue;
        if (batch.settlesAt !== undefined) nudge(Math.max(0, batch.settlesAt - this.now()));
        if (woken) {
          woken = false;
          continue;
        }
        // Also events received while this read ran, or by another gateway on the same store.
        await new Promise<void>((resolve) => {
          wake = resolve;
          nudge(NEXT_POLL_MS);
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
        wake = undefined;
      }
    } finally {
      stop();
      clearInterval(heartbeat);
      stopListWatch();
      if (due) clearTimeout(due);
    }
  }

  /** The type (and the client's grant) and filter of a poll's, stream's or subscribe's parameters. */
  private typeOf(client: McpClient, params: Record<string, unknown>): { type: EventType; filter?: CompiledFilter } {
    const name = params.name;
    if (typeof name !== 'string' || name === '') throw invalidParams('name: the event type to poll is required');
    const type = eventTypesOf(this.deps.routes.all()).find((t) => t.name === name);
    // A type the client was not given is answered like one that does not exist: its name is not the client's to learn.
    if (!type || !client.grant.allows(type)) throw notFound(name);
    const args = params.arguments === undefined || params.arguments === null ? {} : params.arguments;
    if (typeof args !== 'object' || Array.isArray(args)) throw invalidParams('arguments: an object');
    const unknown = Object.keys(args).filter((key) => key !== 'filter');
    if (unknown.length) throw invalidParams(`arguments: unknown ${unknown.join(', ')} (the only argument is filter)`);
    return { type, filter: subscriberFilter((args as { filter?: unknown }).filter) };
  }

  /** Checks a poll's or stream's parameters: the type and filter, the cursor. */
  private begin(client: McpClient, params: Record<string, unknown>): Subscription {
    const { type, filter } = this.typeOf(client, params);
    const maxEvents = params.maxEvents === undefined ? DEFAULT_MAX_EVENTS : params.maxEvents;
    if (typeof maxEvents !== 'number' || !Number.isInteger(maxEvents) || maxEvents < 1) throw invalidParams('maxEvents: a positive integer');
    const maxAgeMs = params.maxAgeMs;
    if (maxAgeMs !== undefined && maxAgeMs !== null && (typeof maxAgeMs !== 'number' || !Number.isInteger(maxAgeMs) || maxAgeMs < 0))
      throw invalidParams('maxAgeMs: a non-negative integer');
    const now = this.now();
    const cursor = params.cursor;
    if (cursor === undefined || cursor === null) {
      // Start from now: nothing before this poll is replayed (but what is still settling will be delivered).
      return { type, filter, from: { t: now - SETTLE_MS, id: '' }, truncated: false, maxEvents: Math.min(maxEvents, MAX_EVENTS) };
    }
    if (typeof cursor !== 'string') throw invalidParams('cursor: a string from an earlier poll, or null');
    const position = decodeCursor(cursor);
    if (!position) throw invalidParams('cursor: not a cursor this server gave out');
    // The store keeps done jobs `store.retention.jobs_days`; before that, events may be gone. maxAgeMs bounds replay too.
    const floor = Math.max(now - this.retentionMs, typeof maxAgeMs === 'number' ? now - maxAgeMs : 0);
    const truncated = position.t < floor;
    return { type, filter, from: truncated ? { t: floor, id: '' } : position, truncated, maxEvents: Math.min(maxEvents, MAX_EVENTS) };
  }

  /** The next events of a subscription from its position, and the position after them. */
  private async read(
    subscription: Subscription,
    cutoff = this.now() - SETTLE_MS,
  ): Promise<{ events: PostedEvent[]; position: EventPosition; hasMore: boolean; settlesAt?: number }> {
    const { type, filter, from, maxEvents } = subscription;
    const jobs = this.deps.jobs;
    const rows: JobSummary[] = jobs.listSummaries ? await jobs.listSummaries({ route: type.route }) : await jobs.list({ route: type.route });
    const ahead = rows.filter((row) => comparePositions(positionOf(row), from) > 0 && (type.event === undefined || isTypeEvent(type.event, row.event)));
    const candidates = ahead.filter((row) => row.receivedAt <= cutoff).sort((a, b) => comparePositions(positionOf(a), positionOf(b)));
    // When the first event still settling may be handed out (a stream reads again then).
    const unsettled = ahead.filter((row) => row.receivedAt > cutoff).map((row) => row.receivedAt);
    const settlesAt = unsettled.length ? Math.min(...unsettled) + SETTLE_MS + 10 : undefined;
    const events: PostedEvent[] = [];
    let position = from;
    let examined = 0;
    for (const row of candidates) {
      if (events.length >= maxEvents || examined >= MAX_EXAMINED) return { events, position, hasMore: true };
      examined++;
      const job: Job | undefined = 'payload' in row ? (row as Job) : await jobs.get(row.id);
      position = positionOf(row);
      if (!job) continue; // Deleted meanwhile (retention).
      const occurrence = this.data.occurrenceOf(job, type.name, this.deps.routes.get(type.route));
      if (await this.data.passes(filter, occurrence, job)) events.push({ ...occurrence, cursor: encodeCursor(position) });
    }
    // Nothing more settled: the cursor moves up to the settled time, so a quiet type's cursor stays fresh.
    const settled = { t: cutoff, id: '' };
    return { events, position: comparePositions(settled, position) > 0 ? settled : position, hasMore: false, settlesAt };
  }
}
