// Assembles a gateway from a loaded config: plugins, route table, stores, pipeline and workers. Used by the
// Express host, by tests and by apps that embed Hookwise.
import type { Logger } from 'winston';
import type { AgentRunner, Deliverer, Skill, StoreHealth } from '@hookwise/core';
import { AuthFailureThrottle } from './ingest/auth-throttle';
import { TrustedProxies, trustedProxyProblem } from './ingest/client-address';
import { builtinPlugin } from './plugins/builtins';
import { INSECURE_NO_AUTH, type HookwiseConfig, type PlatformConfig } from './config/schema';
import { routeProblems } from './route-problems';
import { HookwiseConfigError, errorMessage } from '@hookwise/core';
import { Lifecycle, throttledListenerErrors, type LifecycleEventName, type LifecycleListener } from './observe/lifecycle';
import type { LoadedPlugin } from './plugins/loader';
import { Redactor, createLogger } from './observe/logger';
import { createWebhookHandler } from './ingest/node-handler';
import { WebhookPipeline } from './ingest/pipeline';
import type { NamedSource } from './ingest/pipeline-contract';
import { PluginInstances } from './plugins/plugin-instances';
import { PluginRegistry, type CreateContext } from './plugins/registry';
import { RouteTable, budgetOf, staticRoutes, type Route, type RouteSource } from './routes/routes';
import type { SkillLibrary } from './plugins/skills';
import { secretsProblems } from './routes/secret-policy';
import { StoreStatus } from './observe/store-status';
import { LifecycleWebhooks, notifyProblems } from './observe/lifecycle-webhooks';
import { Transforms } from './transforms/transforms';
import { DeliverOnlyWaits } from './deliver-only/deliver-only-waits';
import { exposureFindings, exposureWarningLine, type ExposureFinding } from './config/exposure-checks';
import { MemoryMemoKV, MemoryProgressKV, createMemoryStore } from './stores/memory';
import type { MemoKV, ProgressKV, Store } from '@hookwise/core';
import { WorkerPool } from './jobs/worker';
import { PreviousEvents } from './jobs/previous-event';
import { AnswerScrubber } from './jobs/answer-scrub';
import { JobChannels } from './jobs/job-channel';
import { createJobActions } from './jobs/actions-run';
import { Approvals } from './approvals/approvals';
import { Conversations } from './conversations/conversations';
import { ConversationStep } from './conversations/conversation-replies';
import { AgentSandboxes, sandboxProblems, storeFiles, type AgentSandboxesOptions } from './jobs/agent-sandbox';
import { checkAgentPrograms } from './jobs/agent-programs';
import { approvalHolds, approvalPresses } from './approvals/approval-hooks';
import { conversationReplies, conversationTurns } from './conversations/conversation-hooks';
import { transformStep } from './transforms/transform-hooks';
import { deliverOnlyAnswers, deliverOnlyWaits } from './deliver-only/deliver-only-hooks';

export interface GatewayOptions {
  config: HookwiseConfig;
  configDir: string;
  env?: NodeJS.ProcessEnv;
  /** Plugins to register besides the built-ins (log deliverer, echo agent). */
  plugins?: LoadedPlugin[];
  store?: Store;
  logger?: Logger;
  redactor?: Redactor;
  /** Dynamic routes (the subscriptions file). */
  routeSource?: RouteSource;
  skills?: SkillLibrary;
  /** Worker tuning for tests. */
  leaseMs?: number;
  pollMs?: number;
  /** The agent sandbox's probe and work dir parent (tests); default: probe this machine, the system temp dir. */
  sandbox?: Pick<AgentSandboxesOptions, 'probe' | 'workParent'>;
}

/** The SPEC's three styles, accepted by routes that pin no source, in the order their headers are read. */
export const SPEC_SOURCES = ['github', 'gitlab', 'generic'] as const;

export class Gateway {
  readonly registry: PluginRegistry;
  readonly routes: RouteTable;
  readonly store: Store;
  /** Delivery progress for deliverers (PluginContext.progress): the store's, else in memory. */
  private readonly progress: ProgressKV;
  /** Plugins' memory across jobs (PluginContext.memos): the store's, else in memory. */
  private readonly memos: MemoKV;
  readonly logger: Logger;
  readonly redactor: Redactor;
  readonly pipeline: WebhookPipeline;
  readonly workers: WorkerPool;
  /** What happens to requests and jobs, for metrics, traces and the dashboard (`on()`); costs nothing unheard. */
  readonly lifecycle: Lifecycle;
  readonly handler: ReturnType<typeof createWebhookHandler>;
  /** The store's state as /health reports it, kept from the gateway's own store calls. */
  readonly storeStatus: StoreStatus;
  private readonly authThrottle: AuthFailureThrottle;
  private readonly shutdown = new AbortController();
  /** The sources, agent runners and deliverers in use, one instance per id (and options). */
  private readonly instances: PluginInstances;
  /** What routes that pin no source accept; filled by start(). */
  private specSources: NamedSource[] = [];
  private shuttingDown = false;
  /** Each agent run's sandbox and the gateway's egress proxy (`agent.sandbox`). */
  readonly sandboxes: AgentSandboxes;
  /** Each agent run's subscription channel (jobs/job-channel.ts): its listener lives as long as the gateway. */
  readonly channels: JobChannels;
  /** Posts the lifecycle events `notify:` chooses to other systems (observe/lifecycle-webhooks.ts). */
  private readonly lifecycleWebhooks: LifecycleWebhooks;
  /** Runs routes' `transform:` in the agent sandbox (jobs/transform.ts). */
  private readonly transforms: Transforms;
  /** Routes' `approval:`: held answers, their records and the presses that decide them (jobs/approval-gate.ts). */
  readonly approvals: Approvals;
  /** Routes' `conversation:`: the records of answers and replies (jobs/conversation-turns.ts), read by the dashboard. */
  readonly conversations: Conversations;

  constructor(readonly options: GatewayOptions) {
    const { config } = options;
    this.redactor = options.redactor ?? new Redactor();
    this.logger = options.logger ?? createLogger({ level: config.log.level, format: config.log.format, redactor: this.redactor });
    this.registry = new PluginRegistry([{ plugin: builtinPlugin, source: '@hookwise/core', options: {} }, ...(options.plugins ?? [])]);
    this.store = options.store ?? createMemoryStore();
    // Deliverers keep half-sent answers and idempotency keys here; a store without it: this process's memory.
    this.progress = this.store.progress ?? new MemoryProgressKV();
    this.memos = this.store.memos ?? new MemoryMemoKV();
    this.lifecycle = new Lifecycle(throttledListenerErrors((message) => this.logger.warn(message)));
    // `notify:` targets: their secrets join the redaction; bad entries are refused by start().
    for (const target of config.notify ?? []) this.redactor.add(target.secret);
    // Kept in the store's outbox until sent; a store without one: this process's memory.
    this.lifecycleWebhooks = new LifecycleWebhooks(config.notify ?? [], this.lifecycle, this.logger, this.store.outbox);
    this.routes = new RouteTable(staticRoutes(config), options.routeSource);
    const extra = config.platforms.webhook.extra;
    const redactRoute = (route: Route) => {
      for (const secret of route.secrets) if (secret !== INSECURE_NO_AUTH) this.redactor.add(secret);
    };
    for (const secret of [extra.secret, ...(extra.secrets ?? [])]) if (secret !== INSECURE_NO_AUTH) this.redactor.add(secret);
    for (const route of this.routes.staticRoutes()) redactRoute(route);
    // Subscriptions get the same checks as static routes, and their secrets join the redaction as they are read.
    options.routeSource?.setCheck?.((route) => {
      redactRoute(route);
      return this.routeProblems(route);
    });
    this.instances = new PluginInstances({ registry: this.registry, config, logger: this.logger, createContext: () => this.createContext() });
    this.storeStatus = new StoreStatus(this.store);
    this.authThrottle = new AuthFailureThrottle({ limit: extra.auth_failure_limit ?? 60, logger: this.logger });
    // Bad entries are reported by start(); the valid ones are used meanwhile.
    const proxies = (extra.trusted_proxies ?? []).filter((entry) => trustedProxyProblem(entry) === undefined);
    // Conversations (issue 31): recorded and continued through the memos, shared by the request and the job paths.
    const conversations = (this.conversations = new Conversations({
      memos: this.memos,
      jobs: this.store.jobs,
      logger: this.logger,
    }));
    // A job held for approval is looked at again every 5 poll intervals (5 s by default): how long a decision may wait.
    const recheckMs = 5 * (options.pollMs ?? 1000);
    this.approvals = new Approvals({
      jobs: this.store.jobs,
      memos: this.memos,
      logger: this.logger,
      lifecycle: this.lifecycle,
      delivererById: (id) => this.delivererById(id),
      recheckMs,
    });
    this.sandboxes = new AgentSandboxes({
      config,
      configDir: options.configDir,
      logger: this.logger,
      hidden: storeFiles(config, options.configDir),
      ...options.sandbox,
    });
    this.transforms = new Transforms({ sandboxes: this.sandboxes, logger: this.logger, silentMarker: config.agent.silent_marker });
    this.pipeline = new WebhookPipeline(
      {
        routes: this.routes,
        lifecycle: this.lifecycle,
        sourcesFor: (route) => (route.source === undefined ? this.specSources : this.sourceFor(route).then((named) => [named])),
        publicUrl: extra.public_url?.replace(/\/+$/, ''),
        store: this.store,
        limits: { rateLimit: extra.rate_limit, maxBodyBytes: extra.max_body_bytes, maxPending: config.store.max_pending },
        logger: this.logger,
        isShuttingDown: () => this.shuttingDown,
        authThrottle: this.authThrottle,
        trustedProxies: proxies.length ? new TrustedProxies(proxies) : undefined,
        storeStatus: this.storeStatus,
      },
      [
        approvalPresses(this.approvals),
        conversationReplies(new ConversationStep(conversations)),
        transformStep(this.transforms),
        deliverOnlyWaits(new DeliverOnlyWaits(this.lifecycle)),
      ],
    );
    this.channels = new JobChannels(this);
    this.workers = new WorkerPool({
      sandboxes: this.sandboxes,
      channels: this.channels,
      // A route's actions, carried out with the gateway's own credentials (jobs/actions-run.ts).
      actions: createJobActions({
        logger: this.logger,
        progress: this.progress,
        delivererById: (id) => this.delivererById(id),
        env: options.env ?? process.env,
        redact: (secret) => this.redactor.add(secret),
        retry: {
          maxAttempts: config.retry.max_attempts,
          baseDelayMs: config.retry.base_delay_seconds * 1000,
          maxDelayMs: config.retry.max_delay_seconds * 1000,
        },
      }),
      answerScrubber: new AnswerScrubber(this.redactor, options.env ?? process.env),
      // {__previous__} of a route's templates: kept in the memos beside the plugins' (durable with SQLite and Redis).
      previous: new PreviousEvents(this.memos, this.store.jobs, this.logger),
      jobs: this.store.jobs,
      lifecycle: this.lifecycle,
      runnerOf: (route) => String(route.agent?.runner ?? this.config.agent.runner),
      routes: this.routes,
      agentFor: (route) => this.agentFor(route),
      delivererById: (id) => this.delivererById(id),
      skillsFor: (route) => this.skillsFor(route),
      retry: {
        maxAttempts: config.retry.max_attempts,
        baseDelayMs: config.retry.base_delay_seconds * 1000,
        maxDelayMs: config.retry.max_delay_seconds * 1000,
      },
      concurrency: config.agent.concurrency,
      agentTimeoutMs: config.agent.timeout_seconds * 1000,
      logger: this.logger,
      leaseMs: options.leaseMs,
      pollMs: options.pollMs,
      storeStatus: this.storeStatus,
      counters: this.store.counters,
      budget: budgetOf(config.agent.budget),
      silentMarker: config.agent.silent_marker,
      hooks: [deliverOnlyAnswers, conversationTurns(conversations, this.logger), approvalHolds(this.approvals)],
    });
    this.handler = createWebhookHandler(this.pipeline, this.logger);
  }

  get config(): HookwiseConfig {
    return this.options.config;
  }

  /** Listens to a lifecycle event (docs/architecture.md); returns the function that stops listening. */
  on<K extends LifecycleEventName>(name: K, listener: LifecycleListener<K>): () => void {
    return this.lifecycle.on(name, listener);
  }

  off<K extends LifecycleEventName>(name: K, listener: LifecycleListener<K>): void {
    this.lifecycle.off(name, listener);
  }

  /** When the approval of a held job was asked (observers' view: observe/observed-gateway.ts). */
  async approvalRequestedAt(jobId: string): Promise<number | undefined> {
    return (await this.approvals.records.get(jobId))?.requestedAt;
  }

  /** What /health reports of the store, from memory (never a store call). */
  storeHealth(): StoreHealth {
    return this.storeStatus.health();
  }

  private createContext(): CreateContext {
    return {
      logger: this.logger,
      configDir: this.options.configDir,
      env: this.options.env ?? process.env,
      signal: this.shutdown.signal,
      redact: (secret) => this.redactor.add(secret),
      isSecret: (value) => this.redactor.has(value),
      scrub: (text) => this.redactor.redact(text),
      progress: this.progress,
      memos: this.memos,
    };
  }

  /** Problems with one route: name, secret, deliverer, skills, agent runner. Used at startup and by the CLI. */
  routeProblems(route: Route, host = this.config.platforms.webhook.extra.host): string[] {
    const ctx = { config: this.config, configDir: this.options.configDir, registry: this.registry, instances: this.instances, skills: this.options.skills };
    return routeProblems(ctx, route, host);
  }

  /** The source a route pins, created once per (source, options). */
  sourceFor(route: Pick<Route, 'name' | 'source' | 'sourceOptions'>): Promise<NamedSource> {
    return this.instances.sourceFor(route);
  }

  /** Validates every static route and creates the sources, runners and deliverers they need. */
  async start(): Promise<void> {
    const problems: string[] = [];
    const extra = this.config.platforms.webhook.extra;
    problems.push(...secretsProblems('platforms.webhook.extra (or WEBHOOK_SECRET)', extra.secrets ?? [extra.secret], extra.secrets !== undefined));
    for (const entry of extra.trusted_proxies ?? []) {
      const problem = trustedProxyProblem(entry);
      if (problem) problems.push(`platforms.webhook.extra.trusted_proxies: ${problem}`);
    }
    for (const route of this.routes.staticRoutes()) problems.push(...this.routeProblems(route));
    if (!this.registry.get('agent', this.config.agent.runner)) {
      problems.push(`agent.runner: unknown agent runner '${this.config.agent.runner}'; known: ${this.registry.ids('agent').sort().join(', ')}`);
    }
    problems.push(...sandboxProblems(this.config.agent.sandbox, 'agent.sandbox'));
    problems.push(...notifyProblems(this.config.notify));
    if (problems.length) throw new HookwiseConfigError(problems, 'the gateway cannot start');

    // Routes without `source:` accept the SPEC's styles, by their headers.
    const unpinned = SPEC_SOURCES.filter((id) => this.registry.get('source', id));
    for (const id of unpinned) this.specSources.push(await this.sourceFor({ name: '(unpinned)', source: id }));
    // Create eagerly what static routes use and every enabled platform, so bad options stop startup.
    const eagerDeliverers = new Set<string>(
      this.routes.staticRoutes().flatMap((r) => [...(r.destinations ?? [{ to: r.deliver }]).map((d) => d.to), ...(r.approval?.via ? [r.approval.via] : [])]),
    );
    for (const [id, platform] of Object.entries(this.config.platforms)) {
      if (id !== 'webhook' && (platform as PlatformConfig).enabled === true && this.registry.get('deliverer', id)) eagerDeliverers.add(id);
    }
    const createProblems: string[] = [];
    for (const id of eagerDeliverers) {
      try {
        await this.delivererById(id);
      } catch (err) {
        createProblems.push(errorMessage(err));
      }
    }
    for (const route of this.routes.staticRoutes()) {
      try {
        await this.agentFor(route);
        if (route.source !== undefined) await this.sourceFor(route);
        const via = route.approval?.via;
        if (via !== undefined && !(await this.delivererById(via)).approval) {
          createProblems.push(
            `route '${route.name}': approval.via '${via}' cannot post drafts with Approve / Deny buttons (telegram, slack and discord can); or leave via unset for the dashboard only`,
          );
        }
      } catch (err) {
        createProblems.push(errorMessage(err));
      }
    }
    if (createProblems.length) throw new HookwiseConfigError([...new Set(createProblems)], 'the gateway cannot start');
    // Each route's sandbox mode is decided (and logged) now: `required` without bubblewrap stops startup here.
    await this.sandboxes.start(this.routes.staticRoutes(), async (route) => (await this.agentFor(route)).sandboxNeeds?.(route.name));
    await checkAgentPrograms(this.routes.staticRoutes(), (route) => this.agentFor(route), this.sandboxes, this.logger);
    if (this.config.agent.runner === 'echo') {
      this.logger.warn('no real agent is configured (agent.runner: echo): every answer is the rendered prompt; see docs/agents.md');
    }
    for (const finding of this.exposureFindings()) this.logger.warn(exposureWarningLine(finding));
    this.workers.start();
    this.lifecycleWebhooks.start();
  }

  /** Operator surfaces without a token on a reachable bind, payload-chosen targets without allowed_targets. */
  exposureFindings(routes: Iterable<Route> = this.routes.staticRoutes()): ExposureFinding[] {
    return exposureFindings(this.config, routes, (to) => {
      const deliverer = this.registry.get('deliverer', to);
      if (!deliverer) return undefined;
      const schema = (deliverer.contribution as { optionsSchema?: { properties?: Record<string, unknown> } }).optionsSchema;
      const allowedTargets = (this.instances.platform(to) as { allowed_targets?: unknown } | undefined)?.allowed_targets;
      return { supportsAllowedTargets: Boolean(schema?.properties?.allowed_targets), allowedTargets, platformKey: this.instances.platformKey(to) };
    });
  }

  /** The deliverer of an id or alias (`telegram`, `platform_01`), created and started once per deliverer. */
  delivererById(id: string): Promise<Deliverer> {
    return this.instances.delivererById(id);
  }

  /** The deliverer of a route's first destination (`deliver:`); kept for callers that hold a route. */
  delivererFor(route: Pick<Route, 'deliver'>): Promise<Deliverer> {
    return this.delivererById(route.deliver);
  }

  /** A route's agent runner (its own `agent:` block, else the global one), created once per (runner, options). */
  agentFor(route: Pick<Route, 'agent' | 'name'>): Promise<AgentRunner> {
    return this.instances.agentFor(route);
  }

  skillsFor(route: Route): Skill[] {
    return route.skills.map((name) => this.options.skills?.get(name)).filter((s): s is Skill => s !== undefined);
  }

  /** Stops accepting, lets running jobs finish until the deadline, stops plugins and closes the store. */
  async stop(deadlineMs = 10_000): Promise<{ unfinished: string[] }> {
    this.shuttingDown = true;
    this.authThrottle.close();
    const result = await this.workers.stop(deadlineMs);
    await this.sandboxes.close();
    // After the workers: no run holds a token any more.
    await this.channels.close();
    this.shutdown.abort();
    await this.instances.stopAll();
    // After the workers (their last lifecycle events are written to the outbox) and before the store closes: what
    // is still unsent stays in a persistent store's outbox for the next start.
    await this.lifecycleWebhooks.close();
    await this.store.close();
    return result;
  }
}

export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const gateway = new Gateway(options);
  await gateway.start();
  return gateway;
}
