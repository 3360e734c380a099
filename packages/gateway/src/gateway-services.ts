// The services every part of one gateway shares, built first and once, before any feature: the config, the logger
// and its redactor, the store with its progress and memos, the lifecycle, the retry policy, the plugins and their
// instances, the route table and the agent sandboxes. The features and both paths are built from this record.
import type { Logger } from 'winston';
import type { MemoKV, ProgressKV, Store } from '@hookwise/core';
import { profileSandboxHiding } from './config/profiles';
import { retryPolicyOf, type RetryPolicy } from './config/retry-policy';
import { INSECURE_NO_AUTH, type HookwiseConfig } from './config/schema';
import type { GatewayOptions } from './gateway-options';
import { AgentSandboxes, storeFiles } from './jobs/agent-sandbox';
import { Lifecycle, throttledListenerErrors } from './observe/lifecycle';
import { Redactor, createLogger } from './observe/logger';
import { OutboundScrubber } from './observe/outbound-scrub';
import { StoreStatus } from './observe/store-status';
import { builtinPlugin } from './plugins/builtins';
import { PluginInstances } from './plugins/plugin-instances';
import { PluginRegistry } from './plugins/registry';
import type { SkillLibrary } from './plugins/skills';
import { RouteTable, staticRoutes, type Route } from './routes/routes';
import { MemoryMemoKV, MemoryProgressKV, createMemoryStore } from './stores/memory';

export interface GatewayServices {
  readonly config: HookwiseConfig;
  readonly configDir: string;
  /** The gateway's environment (with <config_dir>/.env): plugins' credentials. */
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /** Every secret the gateway knows, taken out of log lines and of what leaves it. */
  readonly redactor: Redactor;
  /**
   * The one exit for text (observe/outbound-scrub.ts): what an agent or a payload influenced leaves through it
   * (answers, action inputs, trials, failure text, lifecycle webhooks, plugins' `scrub`), without a secret the
   * redactor or the environment's credential-named variables hold, in any encoding. Job path only.
   */
  readonly outbound: OutboundScrubber;
  readonly store: Store;
  /** Delivery progress for deliverers (PluginContext.progress): the store's, else in memory. */
  readonly progress: ProgressKV;
  /** Plugins' and features' memory across jobs (PluginContext.memos): the store's, else in memory. */
  readonly memos: MemoKV;
  /** What happens to requests and jobs, for observers; costs nothing unheard. */
  readonly lifecycle: Lifecycle;
  /** The store's state as /health reports it, kept from the gateway's own store calls. */
  readonly storeStatus: StoreStatus;
  /** `retry:`: how failed deliveries and actions are tried again. */
  readonly retry: RetryPolicy;
  readonly registry: PluginRegistry;
  /** The sources, agent runners and deliverers in use, one instance per id (and options). */
  readonly instances: PluginInstances;
  /** Static routes, then subscriptions. */
  readonly routes: RouteTable;
  /** Each agent run's sandbox and the gateway's egress proxy (`agent.sandbox`). */
  readonly sandboxes: AgentSandboxes;
  readonly skills?: SkillLibrary;
  /** Aborted once the gateway has stopped: what plugins started with it may end. */
  readonly lifetime: AbortController;
}

export function createServices(options: GatewayOptions): GatewayServices {
  const { config, configDir } = options;
  const env = options.env ?? process.env;
  const redactor = options.redactor ?? new Redactor();
  const logger = options.logger ?? createLogger({ level: config.log.level, format: config.log.format, redactor });
  const registry = new PluginRegistry([{ plugin: builtinPlugin, source: '@hookwise/core', options: {} }, ...(options.plugins ?? [])]);
  const store = options.store ?? createMemoryStore();
  const progress = store.progress ?? new MemoryProgressKV();
  const memos = store.memos ?? new MemoryMemoKV();
  const lifetime = new AbortController();
  const outbound = new OutboundScrubber(redactor, env);
  const createContext = () => ({
    logger,
    configDir,
    env,
    signal: lifetime.signal,
    redact: (secret: string | undefined) => redactor.add(secret),
    isSecret: (value: string) => redactor.has(value),
    scrub: (text: string) => outbound.scrub('plugin-text', text),
    progress,
    memos,
  });
  const routes = new RouteTable(staticRoutes(config), options.routeSource);
  // Agents of one profile never see another's config, subscriptions, homes (config/profiles.ts).
  const hiding = profileSandboxHiding(options.profile, env);
  const extra = config.platforms.webhook.extra;
  for (const secret of [extra.secret, ...(extra.secrets ?? []), ...(config.notify ?? []).map((target) => target.secret)]) redactKnown(redactor, secret);
  for (const route of routes.staticRoutes()) redactRoute(redactor, route);
  return {
    config,
    configDir,
    env,
    logger,
    redactor,
    outbound,
    store,
    progress,
    memos,
    lifecycle: new Lifecycle(throttledListenerErrors((message) => logger.warn(message))),
    storeStatus: new StoreStatus(store),
    retry: retryPolicyOf(config),
    registry,
    instances: new PluginInstances({ registry, config, logger, createContext }),
    routes,
    sandboxes: new AgentSandboxes({
      config,
      configDir,
      logger,
      hidden: [...storeFiles(config, configDir), ...hiding.hidden],
      hiddenExceptAllowed: hiding.hiddenExceptAllowed,
      ...options.sandbox,
    }),
    skills: options.skills,
    lifetime,
  };
}

/** A route's secrets join the redaction (static routes at once, subscriptions as they are read). */
export function redactRoute(redactor: Redactor, route: Pick<Route, 'secrets'>): void {
  for (const secret of route.secrets) redactKnown(redactor, secret);
}

function redactKnown(redactor: Redactor, secret: string | undefined): void {
  if (secret !== INSECURE_NO_AUTH) redactor.add(secret);
}
