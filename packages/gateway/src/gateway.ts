// A gateway: its services (gateway-services.ts), its features (gateway-features.ts) and its two paths
// (gateway-paths.ts), built in that order, with the startup checks and the shutdown order. Used by the HTTP host, by
// every CLI command, by tests and by apps that embed Hookwise (openGateway() assembles one from a config dir).
import type { Logger } from 'winston';
import type { AgentRunner, Deliverer, Skill, Store, StoreHealth } from '@hookwise/core';
import { HookwiseConfigError, errorMessage } from '@hookwise/core';
import { exposureFindings, exposureWarningLine, type ExposureFinding } from './config/exposure-checks';
import { DEFAULT_PROFILE } from './config/profiles';
import type { HookwiseConfig, PlatformConfig } from './config/schema';
import { createFeatures, runnerOf, type GatewayFeatures } from './gateway-features';
import { DEFAULT_SOURCES, type GatewayOptions } from './gateway-options';
import { createJobPath, createRequestPath } from './gateway-paths';
import { createServices, redactRoute, type GatewayServices } from './gateway-services';
import type { AuthFailureThrottle } from './ingest/auth-throttle';
import { trustedProxyProblem } from './ingest/client-address';
import { createWebhookHandler } from './ingest/node-handler';
import type { WebhookPipeline } from './ingest/pipeline';
import type { NamedSource } from './ingest/pipeline-contract';
import { sandboxProblems } from './jobs/agent-sandbox';
import type { WorkerPool } from './jobs/worker';
import type { LifecycleEventName, LifecycleListener } from './observe/lifecycle';
import { LifecycleWebhooks, notifyProblems } from './observe/lifecycle-webhooks';
import { routeProblems } from './route-problems';
import type { Route } from './routes/routes';
import { secretsProblems } from './routes/secret-policy';
import { senderProblems } from './senders/sender-check';
import { checkAgentPrograms } from './jobs/agent-programs';

export class Gateway {
  /** What every part shares: config, logger, redactor, store, lifecycle, plugins, routes, sandboxes. */
  readonly services: GatewayServices;
  /** Conversations, approvals, transforms, actions, the job channel, and their hooks. */
  readonly features: GatewayFeatures;
  readonly pipeline: WebhookPipeline;
  readonly workers: WorkerPool;
  readonly handler: ReturnType<typeof createWebhookHandler>;
  private readonly authThrottle: AuthFailureThrottle;
  /** Posts the lifecycle events `notify:` chooses to other systems (observe/lifecycle-webhooks.ts). */
  private readonly lifecycleWebhooks: LifecycleWebhooks;
  /** What routes that pin no source accept; filled by start(). */
  private defaultSources: NamedSource[] = [];
  private shuttingDown = false;

  constructor(readonly options: GatewayOptions) {
    const services = (this.services = createServices(options));
    this.features = createFeatures(services, { ...options, routeProblems: (route) => this.routeProblems(route) });
    // Subscriptions get the same checks as static routes, and their secrets join the redaction as they are read.
    options.routeSource?.setCheck?.((route) => {
      redactRoute(services.redactor, route);
      return this.routeProblems(route);
    });
    // Kept in the store's outbox until sent; a store without one: this process's memory.
    this.lifecycleWebhooks = new LifecycleWebhooks(this.config.notify ?? [], services.lifecycle, services.logger, services.store.outbox, {
      outbound: services.outbound,
      profile: this.profile,
    });
    ({ pipeline: this.pipeline, authThrottle: this.authThrottle } = createRequestPath(services, this.features, {
      sourcesFor: (route) => (route.source === undefined ? this.defaultSources : this.sourceFor(route).then((named) => [named])),
      isShuttingDown: () => this.shuttingDown,
    }));
    this.workers = createJobPath(services, this.features, { leaseMs: options.leaseMs, pollMs: options.pollMs });
    this.handler = createWebhookHandler(this.pipeline, services.logger);
  }

  get config(): HookwiseConfig {
    return this.options.config;
  }

  /** The profile this gateway serves: `default` for the config dir's own routes. */
  get profile(): string {
    return this.options.profile?.name ?? DEFAULT_PROFILE;
  }

  get registry() {
    return this.services.registry;
  }

  get routes() {
    return this.services.routes;
  }

  get store(): Store {
    return this.services.store;
  }

  get logger(): Logger {
    return this.services.logger;
  }

  get redactor() {
    return this.services.redactor;
  }

  get lifecycle() {
    return this.services.lifecycle;
  }

  get storeStatus() {
    return this.services.storeStatus;
  }

  get sandboxes() {
    return this.services.sandboxes;
  }

  get channels() {
    return this.features.channels;
  }

  get approvals() {
    return this.features.approvals;
  }

  get conversations() {
    return this.features.conversations;
  }

  get actions() {
    return this.features.actions;
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

  /** Problems with one route: name, secret, deliverer, skills, agent runner. Used at startup and by the CLI. */
  routeProblems(route: Route, host = this.config.platforms.webhook.extra.host): string[] {
    const { config, configDir, registry, instances, skills } = this.services;
    return routeProblems({ config, configDir, registry, instances, skills, actions: this.actions }, route, host);
  }

  /** The source a route pins, created once per (source, options). */
  sourceFor(route: Pick<Route, 'name' | 'source' | 'sourceOptions'>): Promise<NamedSource> {
    return this.services.instances.sourceFor(route);
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
    problems.push(...this.actions.conflicts);
    problems.push(...this.features.mcpEvents.problems);
    if (problems.length) throw new HookwiseConfigError(problems, 'the gateway cannot start');

    // Routes without `source:` accept the distribution's default sources, by their headers.
    const unpinned = (this.options.defaultSources ?? DEFAULT_SOURCES).filter((id) => this.registry.get('source', id));
    for (const id of unpinned) this.defaultSources.push(await this.sourceFor({ name: '(unpinned)', source: id }));
    // Create eagerly what static routes use and every enabled platform, so bad options stop startup.
    const eagerDeliverers = new Set<string>(
      this.routes.staticRoutes().flatMap((r) => [...(r.destinations ?? [{ to: r.deliver }]).map((d) => d.to), ...(r.approval?.via ? [r.approval.via] : [])]),
    );
    for (const [id, platform] of Object.entries(this.config.platforms)) {
      if (id !== 'webhook' && (platform as PlatformConfig).enabled === true && this.registry.get('deliverer', id)) eagerDeliverers.add(id);
    }
    // And the deliverers that perform the actions static routes name (one that must be enabled and is not fails its calls).
    for (const route of this.routes.staticRoutes()) {
      for (const name of Object.keys(route.actions ?? {})) {
        const by = this.actions.get(name)?.by;
        if (by && (!by.requiresEnabled || this.services.instances.platform(by.deliverer)?.enabled === true)) eagerDeliverers.add(by.deliverer);
      }
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
        createProblems.push(...senderProblems(route, route.source === undefined ? undefined : (await this.sourceFor(route)).source, this.logger));
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
    await this.checkAdminReach();
    this.logModelProxy();
    if (this.config.agent.runner === 'echo') {
      this.logger.warn('no real agent is configured (agent.runner: echo): every answer is the rendered prompt; see docs/agents.md');
    }
    for (const finding of this.exposureFindings()) this.logger.warn(exposureWarningLine(finding));
    this.workers.start();
    await this.features.schedules.start();
    this.lifecycleWebhooks.start();
  }

  /**
   * An admin API without admin.token answers every loopback client: once an agent can reach loopback (a run without
   * a sandbox, or `localhost` in a sandbox network) it could read every stored payload and decide held answers. The
   * egress proxy refuses the gateway's own listeners; this is the second wall: such a gateway does not start.
   */
  private async checkAdminReach(): Promise<void> {
    const admin = this.config.admin;
    if (!(admin?.enabled === true || admin?.ui === true) || admin.token !== undefined) return;
    const routes = [undefined, ...this.routes.all()];
    const reasons = await this.sandboxes.loopbackReach(routes, async (route) => (await this.agentFor(route)).sandboxNeeds?.(route.name));
    if (!reasons.length) return;
    throw new HookwiseConfigError(
      [
        ...reasons.map((reason) => `admin: ${reason}`),
        'admin: the admin API (admin.enabled or admin.ui) has no admin.token, and answers every loopback client, agents included: ' +
          'set admin.token: ${HOOKWISE_ADMIN_TOKEN} with HOOKWISE_ADMIN_TOKEN (16+ characters) in .env, or turn the admin API off, ' +
          'or keep agents off loopback (a sandbox: agent.sandbox.mode required; no localhost, 127.0.0.1 or ::1 in agent.sandbox.network)',
      ],
      'the gateway cannot start',
    );
  }

  /** Which routes' agent CLIs reach the model through the proxy, and a warning for each that gets the key itself. */
  private logModelProxy(): void {
    const proxy = this.features.modelProxy;
    const routes = [...this.routes.staticRoutes()].map((route) => ({ name: route.name, runner: runnerOf(route, this.config) }));
    const served = routes.filter((route) => proxy.serves(route.runner)).map((route) => `'${route.name}'`);
    if (served.length && proxy.mode === 'auto')
      this.logger.info(
        `model proxy: the agent CLIs of route ${served.join(', ')} get the proxy's URL and a per-run token, never ${proxy.heldKeys.join(' or ')} (agent.model_proxy.enabled unset: on for agent processes)`,
      );
    for (const warning of proxy.keyWarnings(routes)) this.logger.warn(warning);
  }

  /** Operator surfaces without a token on a reachable bind, payload-chosen targets without allowed_targets. */
  exposureFindings(routes: Iterable<Route> = this.routes.staticRoutes()): ExposureFinding[] {
    const { instances } = this.services;
    return exposureFindings(this.config, routes, (to) => {
      const deliverer = this.registry.get('deliverer', to);
      if (!deliverer) return undefined;
      const schema = (deliverer.contribution as { optionsSchema?: { properties?: Record<string, unknown> } }).optionsSchema;
      const allowedTargets = (instances.platform(to) as { allowed_targets?: unknown } | undefined)?.allowed_targets;
      return { supportsAllowedTargets: Boolean(schema?.properties?.allowed_targets), allowedTargets, platformKey: instances.platformKey(to) };
    });
  }

  /** The deliverer of an id or alias (`telegram`, `platform_01`), created and started once per deliverer. */
  delivererById(id: string): Promise<Deliverer> {
    return this.services.instances.delivererById(id);
  }

  /** The deliverer of a route's first destination (`deliver:`); kept for callers that hold a route. */
  delivererFor(route: Pick<Route, 'deliver'>): Promise<Deliverer> {
    return this.delivererById(route.deliver);
  }

  /** A route's agent runner (its own `agent:` block, else the global one), created once per (runner, options). */
  agentFor(route: Pick<Route, 'agent' | 'name'>): Promise<AgentRunner> {
    return this.services.instances.agentFor(route);
  }

  skillsFor(route: Route): Skill[] {
    return route.skills.flatMap((name) => this.services.skills?.get(name) ?? []);
  }

  /** Stops accepting, lets running jobs finish until the deadline, stops plugins and closes the store. */
  async stop(deadlineMs = 10_000): Promise<{ unfinished: string[] }> {
    this.shuttingDown = true;
    this.authThrottle.close();
    await this.features.schedules.stop();
    const result = await this.workers.stop(deadlineMs);
    await this.sandboxes.close();
    // After the workers: no run holds a token any more.
    await this.channels.close();
    await this.features.modelProxy.close();
    this.services.lifetime.abort();
    await this.services.instances.stopAll();
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
