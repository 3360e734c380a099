// Prometheus metrics of a gateway (prom-client), counted from its lifecycle events; the queue gauge is read at
// scrape time. prom-client is loaded only when metrics are on, so a CLI command never pays for it.
import type { Registry } from 'prom-client';
import { errorMessage } from '@hookwise/core';
import { DEFAULT_MAX_ROUTE_LABELS } from '../config/observability-schema';
import type { ObservedGateway } from './observed-gateway';
import { approvalMetrics } from './approval-metrics';
import type { LifecycleEventName, LifecycleListener } from './lifecycle';
import { DEFAULT_PROFILE } from '../config/profiles';

export interface GatewayMetricsOptions {
  /** Distinct route label values at most; further routes are counted as `(other)`. */
  maxRouteLabels?: number;
  /** Process metrics (CPU, memory, event loop, GC) of prom-client's default collector; default true. */
  processMetrics?: boolean;
}

export interface GatewayMetrics {
  readonly registry: Registry;
  /** The profile of the gateway it counts for (`default`: the config dir's own routes). */
  readonly profile: string;
  readonly contentType: string;
  /** The exposition text (Prometheus text format 0.0.4). */
  text(): Promise<string>;
  close(): void;
}

/** Seconds-valued buckets: agent runs take seconds to minutes, deliveries milliseconds to seconds. */
const AGENT_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const DELIVERY_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Dead letters are counted by listing them; above this the gauge stops counting (a list is parsed, not a COUNT). */
const DEAD_COUNT_LIMIT = 1000;
const DEAD_COUNT_TTL_MS = 30_000;
const QUEUE_READ_TIMEOUT_MS = 1000;

/**
 * Route names come from senders' URLs (unknown routes) and from the subscriptions file (thousands, possibly): a
 * label per name would grow without bound. Unknown names are `(unknown)`; known ones get their own value until
 * `max` distinct values exist, later ones are `(other)`.
 */
export class RouteLabels {
  private readonly seen = new Set<string>();

  constructor(private readonly max: number) {}

  label(route: string, known: boolean): string {
    if (!known) return '(unknown)';
    if (this.seen.has(route)) return route;
    if (this.seen.size >= this.max) return '(other)';
    this.seen.add(route);
    return route;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function createGatewayMetrics(gateway: ObservedGateway, options: GatewayMetricsOptions = {}): GatewayMetrics {
  const client = require('prom-client') as typeof import('prom-client');
  const registry = new client.Registry();
  // A profile's series name it, so the registries of the gateways one process hosts can be merged into one /metrics
  // answer without their series adding up. The default profile's get theirs only in that merge (hostedMetricsText):
  // a gateway without profiles exposes the series it always did.
  const profile = gateway.profile ?? DEFAULT_PROFILE;
  if (profile !== DEFAULT_PROFILE) registry.setDefaultLabels({ profile });
  const routes = new RouteLabels(options.maxRouteLabels ?? DEFAULT_MAX_ROUTE_LABELS);
  const routeLabel = (name: string, known = true) => routes.label(name, known);

  const requests = new client.Counter({
    name: 'hookwise_webhook_requests_total',
    help: 'Webhook requests answered by the pipeline, by route, HTTP status and outcome (accepted, duplicate, ignored, rejected).',
    labelNames: ['route', 'status', 'outcome'] as const,
    registers: [registry],
  });
  const rejected = new client.Counter({
    name: 'hookwise_webhook_rejections_total',
    help: 'Refused webhook requests by route and reason (unknown_route, rate_limited, invalid_signature, backpressure, ...).',
    labelNames: ['route', 'reason'] as const,
    registers: [registry],
  });
  const verification = new client.Counter({
    name: 'hookwise_webhook_verification_failures_total',
    help: 'Requests whose signature was missing or did not match, by the source that checked it (none: no source recognised the request) and reason.',
    labelNames: ['source', 'reason'] as const,
    registers: [registry],
  });
  const agentRuns = new client.Histogram({
    name: 'hookwise_agent_run_duration_seconds',
    help: 'Agent runs by route, runner and outcome (ok, error, timeout).',
    labelNames: ['route', 'runner', 'outcome'] as const,
    buckets: AGENT_BUCKETS,
    registers: [registry],
  });
  const tokens = new client.Counter({
    name: 'hookwise_agent_tokens_total',
    help: 'Tokens used by agent runs, by route, runner and type (input, output), when the runner reports them.',
    labelNames: ['route', 'runner', 'type'] as const,
    registers: [registry],
  });
  const deliveries = new client.Histogram({
    name: 'hookwise_delivery_duration_seconds',
    help: "Delivery attempts by destination (the route's deliver) and outcome (delivered, failed).",
    labelNames: ['destination', 'outcome'] as const,
    buckets: DELIVERY_BUCKETS,
    registers: [registry],
  });
  const retries = new client.Counter({
    name: 'hookwise_retries_total',
    help: 'Failed steps scheduled for another attempt, by route and step (agent, deliver).',
    labelNames: ['route', 'step'] as const,
    registers: [registry],
  });
  const deadLetters = new client.Counter({
    name: 'hookwise_dead_letters_total',
    help: 'Jobs that became dead letters in this process, by route and the step that failed.',
    labelNames: ['route', 'step'] as const,
    registers: [registry],
  });
  const completed = new client.Counter({
    name: 'hookwise_jobs_completed_total',
    help: "Jobs done in this process, by route and outcome: delivered (also a deliver: none route's jobs), silent (the agent answered the silent marker or nothing), skipped (a spent budget, or a conversation reply whose turns ran out while it waited), denied and expired (a route's approval).",
    labelNames: ['route', 'outcome'] as const,
    registers: [registry],
  });
  const budgetExceeded = new client.Counter({
    name: 'hookwise_budget_exceeded_total',
    help: "Agent runs a budget refused, by route, scope (route: the route's budget; global: agent.budget), budget (runs_per_hour, tokens_per_day) and action (wait, skip).",
    labelNames: ['route', 'scope', 'budget', 'action'] as const,
    registers: [registry],
  });
  const conversationsContinued = new client.Counter({
    name: 'hookwise_conversations_continued_total',
    help: "Replies that continued a conversation (a new job on the conversation's route), by that route and the platform replied on.",
    labelNames: ['route', 'platform'] as const,
    registers: [registry],
  });
  const mcpWebhooks = new client.Counter({
    name: 'hookwise_mcp_webhook_deliveries_total',
    help: 'Attempts to post events to MCP Events webhook subscribers, by client (mcp.clients) and outcome (delivered, retrying, failed).',
    labelNames: ['client', 'outcome'] as const,
    registers: [registry],
  });

  let deadCount: { value: number; at: number } | undefined;
  const countDead = async (): Promise<number> => {
    if (deadCount && Date.now() - deadCount.at < DEAD_COUNT_TTL_MS) return deadCount.value;
    const dead = await gateway.store.jobs.list({ status: 'dead', limit: DEAD_COUNT_LIMIT });
    deadCount = { value: dead.length, at: Date.now() };
    return dead.length;
  };
  let queueProblem: string | undefined;
  new client.Gauge({
    name: 'hookwise_queue_jobs',
    help: `Jobs by state: pending (waiting, or running in another gateway), running (in this gateway), dead (dead letters, counted up to ${DEAD_COUNT_LIMIT}, refreshed every ${DEAD_COUNT_TTL_MS / 1000} s).`,
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const running = gateway.workers.inFlight;
      this.set({ state: 'running' }, running);
      try {
        // Waiting or running anywhere; this gateway's running jobs are reported apart.
        const [open, dead] = await withTimeout(Promise.all([gateway.store.jobs.pendingCount(), countDead()]), QUEUE_READ_TIMEOUT_MS);
        this.set({ state: 'pending' }, Math.max(0, open - running));
        this.set({ state: 'dead' }, dead);
        queueProblem = undefined;
      } catch (err) {
        // A locked or unreachable store must not fail the scrape: the last values stay, the log says why once.
        const message = errorMessage(err);
        if (message !== queueProblem) gateway.logger.warn(`metrics: could not read the queue depth from the store: ${message}`);
        queueProblem = message;
      }
    },
  });
  // The process's own metrics once, with the default profile's registry: a profile's gateway shares the process.
  if (options.processMetrics !== false && profile === DEFAULT_PROFILE) client.collectDefaultMetrics({ register: registry });

  const stops: Array<() => void> = [];
  const on = <K extends LifecycleEventName>(name: K, listener: LifecycleListener<K>) => stops.push(gateway.on(name, listener));
  on('accepted', (e) => requests.inc({ route: routeLabel(e.route), status: '202', outcome: 'accepted' }));
  on('duplicate', (e) => requests.inc({ route: routeLabel(e.route), status: '200', outcome: 'duplicate' }));
  on('ignored', (e) => requests.inc({ route: routeLabel(e.route), status: '200', outcome: 'ignored' }));
  on('rejected', (e) => {
    const route = routeLabel(e.route, e.knownRoute);
    requests.inc({ route, status: String(e.status), outcome: 'rejected' });
    rejected.inc({ route, reason: e.reason });
    if (e.reason === 'missing_signature' || e.reason === 'invalid_signature') verification.inc({ source: e.source ?? 'none', reason: e.reason });
  });
  on('agent_finished', (e) => {
    const route = routeLabel(e.route);
    agentRuns.observe({ route, runner: e.runner, outcome: e.outcome }, e.durationMs / 1000);
    if (e.usage?.inputTokens) tokens.inc({ route, runner: e.runner, type: 'input' }, e.usage.inputTokens);
    if (e.usage?.outputTokens) tokens.inc({ route, runner: e.runner, type: 'output' }, e.usage.outputTokens);
  });
  on('delivered', (e) => deliveries.observe({ destination: e.destination, outcome: 'delivered' }, e.durationMs / 1000));
  on('retry_scheduled', (e) => {
    retries.inc({ route: routeLabel(e.route), step: e.step });
    if (e.destination !== undefined) deliveries.observe({ destination: e.destination, outcome: 'failed' }, e.durationMs / 1000);
  });
  on('dead_lettered', (e) => {
    deadLetters.inc({ route: routeLabel(e.route), step: e.step });
    if (e.destination !== undefined) deliveries.observe({ destination: e.destination, outcome: 'failed' }, e.durationMs / 1000);
  });
  on('completed', (e) => completed.inc({ route: routeLabel(e.route), outcome: e.outcome }));
  on('budget_exceeded', (e) => budgetExceeded.inc({ route: routeLabel(e.route), scope: e.scope, budget: e.budget, action: e.action }));
  on('conversation_continued', (e) => conversationsContinued.inc({ route: routeLabel(e.route), platform: e.platform }));
  on('mcp_webhook_delivery', (e) => mcpWebhooks.inc({ client: e.client, outcome: e.outcome }));
  approvalMetrics({
    client,
    registry,
    routeLabel,
    on,
    requestedAt: (jobId) => gateway.approvalRequestedAt(jobId),
  });

  return {
    registry,
    profile,
    contentType: registry.contentType,
    text: () => registry.metrics(),
    close() {
      for (const stop of stops.splice(0)) stop();
      registry.clear();
    },
  };
}

/**
 * One exposition of the registries of the gateways one process hosts (the default profile's and each profile's):
 * each registry labels its series with its profile, so prom-client's aggregation keeps them apart.
 */
export async function hostedMetricsText(all: readonly GatewayMetrics[]): Promise<string> {
  if (all.length === 1) return all[0].text();
  const client = require('prom-client') as typeof import('prom-client');
  const parts = await Promise.all(
    all.map(async (metrics) => {
      const json = await metrics.registry.getMetricsAsJSON();
      if (metrics.profile !== DEFAULT_PROFILE) return json;
      // The default profile's registry carries no profile label of its own (see createGatewayMetrics): added here.
      return json.map((metric) => ({ ...metric, values: metric.values.map((v) => ({ ...v, labels: { ...v.labels, profile: DEFAULT_PROFILE } })) }));
    }),
  );
  return client.AggregatorRegistry.aggregate(parts as Parameters<typeof client.AggregatorRegistry.aggregate>[0]).metrics();
}
