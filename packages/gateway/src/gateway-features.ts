// The features of one gateway, built from its services in the order they depend on each other, and the hooks
// they add to the request path (ingest/ingest-hooks.ts) and the job path (jobs/job-hooks.ts). A new feature is a
// room of its own that implements those hooks, and one entry here: ingest and jobs never learn its name.
import type { SourceContribution } from '@hookwise/core';
import { ActionCatalogue } from './actions/action-catalogue';
import { JobActions } from './actions/run-actions';
import { approvalHolds, approvalPresses } from './approvals/approval-hooks';
import { Approvals } from './approvals/approvals';
import { conversationReplies, conversationTurns } from './conversations/conversation-hooks';
import { ConversationStep } from './conversations/conversation-replies';
import { Conversations } from './conversations/conversations';
import { deliverOnlyAnswers, deliverOnlyWaits } from './deliver-only/deliver-only-hooks';
import { DeliverOnlyWaits } from './deliver-only/deliver-only-waits';
import type { GatewayServices } from './gateway-services';
import type { IngestHook } from './ingest/ingest-hooks';
import { JobChannels } from './job-channel/job-channel';
import { McpEvents } from './mcp-events/mcp-events';
import { jobChannelHook } from './job-channel/job-channel-hook';
import type { JobHook } from './jobs/job-hooks';
import { ModelProxy, modelProxyHook } from './model-proxy/model-proxy-hook';
import { budgetOf, type Route } from './routes/routes';
import { Scheduler, type ScheduleClock } from './schedules/scheduler';
import type { HookwiseConfig } from './config/config-types';
import { MemoryWindowCounters } from './stores/memory-counters';
import { MemoryOutbox } from './stores/memory-outbox';
import { senderCheck } from './senders/sender-check';
import { acceptorOf, JobRoutes } from './ingest/accept-step';
import { transformStep } from './transforms/transform-hooks';
import { Transforms } from './transforms/transforms';

export interface GatewayFeatures {
  /** Routes' `conversation:`: the records of answers and replies, read by the dashboard. */
  readonly conversations: Conversations;
  /** Routes' `approval:`: held answers, their records and the presses that decide them. */
  readonly approvals: Approvals;
  /** Routes' `transform:`, run in the agent sandbox. */
  readonly transforms: Transforms;
  /** The actions routes may name: the registered deliverers' and the gateway's own. */
  readonly actions: ActionCatalogue;
  /** Each agent run's channel (its subscriptions and its actions as MCP tools): a listener as long as the gateway. */
  readonly channels: JobChannels;
  /** `agent.model_proxy`: each run's model calls with the gateway's keys, priced and capped. */
  readonly modelProxy: ModelProxy;
  /** Routes' `schedule:`: their ticks as events, and `hookwise routes run`; started and stopped with the gateway. */
  readonly schedules: Scheduler;
  /** `mcp.clients`: the routes as MCP event types, polled and streamed from the store (POST /mcp, served by the host). */
  readonly mcpEvents: McpEvents;
  /** What the features add to the request path, in the order they run (after the own-message check). */
  readonly ingestHooks: readonly IngestHook[];
  /** What the features add to each job, in the order they are asked. */
  readonly jobHooks: readonly JobHook[];
}

export interface FeatureOptions {
  /** How often idle workers poll (tests); a held approval is looked at again every 5 polls. */
  pollMs?: number;
  /** The distribution's agent-facing CLI, readable in each run (GatewayOptions.agentCli). */
  agentCli?: { dir: string };
  /** The gateway's check of a route, for subscriptions an agent makes over its channel. */
  routeProblems(route: Route): string[];
  /** The schedules' clock (tests move it); default: the process's. */
  scheduleClock?: ScheduleClock;
  /** MCP Events tuning for tests (GatewayOptions.mcpEvents). */
  mcpEvents?: { clock?: () => number; refreshMs?: number };
  /** The profile this gateway serves (GatewayOptions.profile); absent: the default one. */
  profile?: { name: string };
}

export function createFeatures(services: GatewayServices, options: FeatureOptions): GatewayFeatures {
  const { config, logger, lifecycle, memos, store, instances, sandboxes } = services;
  const delivererById = (id: string) => instances.delivererById(id);
  const conversations = new Conversations({ memos, jobs: store.jobs, logger });
  // A decision may wait this long to be seen by a held job (5 s by default).
  const approvals = new Approvals({ jobs: store.jobs, memos, logger, lifecycle, delivererById, recheckMs: 5 * (options.pollMs ?? 1000) });
  const transforms = new Transforms({ sandboxes, logger, silentMarker: config.agent.silent_marker });
  const actions = ActionCatalogue.fromRegistry(services.registry);
  const jobActions = new JobActions({
    logger,
    progress: services.progress,
    delivererById,
    catalogue: actions,
    platformEnabled: (id) => instances.platform(id)?.enabled === true,
    retry: services.retry,
    outbound: services.outbound,
  });
  const channelGateway = {
    config,
    options: { configDir: services.configDir },
    routes: services.routes,
    logger,
    redactor: services.redactor,
    routeProblems: options.routeProblems,
  };
  const modelProxy = new ModelProxy({
    ...{ config: config.agent.model_proxy, env: services.env, logger, redact: (secret: string) => services.redactor.add(secret) },
    budgets: { counters: store.counters ?? new MemoryWindowCounters(), global: budgetOf(config.agent.budget) },
  });
  const channels = new JobChannels(channelGateway, { readOnly: options.agentCli ? [options.agentCli.dir] : [] });
  const extra = config.platforms.webhook.extra;
  const schedules = new Scheduler({
    scheduledRoutes: () => services.routes.staticRoutes(),
    route: (name) => services.routes.get(name),
    accept: acceptorOf(store),
    jobRoutes: new JobRoutes(),
    limits: { rateLimit: extra.rate_limit, maxBodyBytes: extra.max_body_bytes, maxPending: config.store.max_pending },
    memos,
    logger,
    lifecycle,
    storeStatus: services.storeStatus,
    clock: options.scheduleClock,
  });
  const mcpEvents = new McpEvents({
    ...{ config, env: services.env, routes: services.routes, jobs: store.jobs, lifecycle, memos, logger, outbound: services.outbound },
    // Kept until sent, like notify: messages; a store without an outbox: this process's memory.
    outbox: store.outbox ?? new MemoryOutbox(),
    payloadSchemaOfSource: (id) => (services.registry.get('source', id)?.contribution as SourceContribution | undefined)?.payloadSchema,
    now: options.mcpEvents?.clock,
    subscriptionsRefreshMs: options.mcpEvents?.refreshMs,
    // A profile's routes are served under its prefix: an upstream must post there.
    webhookPrefix: options.profile ? `/p/${encodeURIComponent(options.profile.name)}` : '',
  });
  return {
    conversations,
    approvals,
    transforms,
    actions,
    channels,
    modelProxy,
    schedules,
    mcpEvents,
    ingestHooks: [
      approvalPresses(approvals),
      conversationReplies(new ConversationStep(conversations)),
      senderCheck(),
      transformStep(transforms),
      deliverOnlyWaits(new DeliverOnlyWaits(lifecycle)),
    ],
    jobHooks: [
      deliverOnlyAnswers,
      conversationTurns(conversations, logger),
      approvalHolds(approvals),
      jobChannelHook({ channels, toolsFor: (route, job, signal) => jobActions.forRun(route, job, signal), hidden: (path) => sandboxes.overlapsHidden(path) }),
      modelProxyHook(modelProxy, (route) => runnerOf(route, config)),
    ],
  };
}

/** A route's runner: its own `agent:` block's, else the global one. */
export function runnerOf(route: Pick<Route, 'agent'>, config: Pick<HookwiseConfig, 'agent'>): string {
  return String(route.agent?.runner ?? config.agent.runner);
}
