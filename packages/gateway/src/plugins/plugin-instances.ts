// The plugin instances a gateway runs with: sources, agent runners and deliverers, each created once per id (and
// options) from its config block, checked against its plugin's options schema; stopped together at shutdown.
import type { Logger } from 'winston';
import type { AgentRunner, Deliverer } from '@hookwise/core';
import { HookwiseConfigError, errorMessage, isRetryable } from '@hookwise/core';
import { configSchema, type HookwiseConfig, type PlatformConfig } from '../config/schema';
import { routeSchema } from '../config/route-schema';
import type { NamedSource } from '../ingest/pipeline-contract';
import type { Route } from '../routes/routes';
import { InstanceCache } from './instance-cache';
import type { CreateContext, PluginRegistry } from './registry';

/**
 * The gateway's own keys of an agent block (runner, timeout, budget, sandbox, prompt_hygiene, ...), read from the
 * schemas that declare them: never passed to the runner as options, so a runner with a strict options schema never
 * refuses a key the gateway added, whichever key comes next.
 */
const AGENT_KEYS_NOT_OPTIONS = new Set([...Object.keys(configSchema.properties.agent.properties), ...Object.keys(routeSchema.properties.agent.properties)]);

function agentOptions(block: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(block).filter(([k]) => !AGENT_KEYS_NOT_OPTIONS.has(k)));
}

function platformOptions(platform: PlatformConfig | undefined): Record<string, unknown> {
  const { enabled: _enabled, ...rest } = platform ?? {};
  return rest;
}

export interface PluginInstancesOptions {
  registry: PluginRegistry;
  config: HookwiseConfig;
  logger: Logger;
  /** What a plugin is created with (logger, config dir, env, shutdown signal, redaction, progress). */
  createContext(): CreateContext;
}

export class PluginInstances {
  private readonly deliverers = new InstanceCache<Deliverer>();
  private readonly agents = new InstanceCache<AgentRunner>();
  private readonly sources = new InstanceCache<NamedSource>();

  constructor(private readonly options: PluginInstancesOptions) {}

  /** `platforms.<id>` under the deliverer's real name or any of its aliases (`telegram` or `platform_01`). */
  platform(id: string): PlatformConfig | undefined {
    const { registry, config } = this.options;
    for (const name of registry.namesOf('deliverer', id)) {
      const block = config.platforms[name] as PlatformConfig | undefined;
      if (block) return block;
    }
    return undefined;
  }

  /** Where a platform's config block is (the spelling the user wrote), for messages. */
  platformKey(id: string): string {
    const { registry, config } = this.options;
    return registry.namesOf('deliverer', id).find((name) => config.platforms[name]) ?? registry.canonicalId('deliverer', id);
  }

  /** The source a route pins, created once per (source, options). */
  sourceFor(route: Pick<Route, 'name' | 'source' | 'sourceOptions'>): Promise<NamedSource> {
    const { registry } = this.options;
    const id = route.source ?? 'generic';
    return this.sources.get(`${id}\u0000${JSON.stringify(route.sourceOptions ?? {})}`, async () => {
      const canonical = registry.canonicalId('source', id);
      const validated = registry.validateOptions('source', canonical, route.sourceOptions ?? {}, `route '${route.name}' source_options`);
      if (validated.problems.length) throw new HookwiseConfigError(validated.problems, `source '${id}' is not configured correctly`);
      return { id: canonical, source: await registry.create('source', canonical, validated.options, this.options.createContext()) };
    });
  }

  /** The deliverer of an id or alias, created once per deliverer from its `platforms.<id>` block, and started. */
  delivererById(idOrAlias: string): Promise<Deliverer> {
    const { registry } = this.options;
    const id = registry.canonicalId('deliverer', idOrAlias);
    return this.deliverers.get(id, async () => {
      const { options, problems } = registry.validateOptions('deliverer', id, platformOptions(this.platform(id)), `platforms.${this.platformKey(id)}`);
      if (problems.length) throw new HookwiseConfigError(problems, `deliverer '${id}' is not configured correctly`);
      const deliverer = await registry.create('deliverer', id, options, this.options.createContext());
      await this.startDeliverer(id, deliverer);
      return deliverer;
    });
  }

  /** A route's agent runner (its own `agent:` block, else the global one), created once per (runner, options). */
  agentFor(route: Pick<Route, 'agent' | 'name'>): Promise<AgentRunner> {
    const { registry, config } = this.options;
    const block: Record<string, unknown> = route.agent ? { ...route.agent } : { ...config.agent };
    const runner = String(block.runner ?? config.agent.runner);
    const options = agentOptions(block);
    return this.agents.get(`${runner}\u0000${JSON.stringify(options)}`, async () => {
      const where = route.agent ? `route '${route.name}' agent` : 'agent';
      const validated = registry.validateOptions('agent', runner, options, where);
      if (validated.problems.length) throw new HookwiseConfigError(validated.problems, `agent runner '${runner}' is not configured correctly`);
      return registry.create('agent', runner, validated.options, this.options.createContext());
    });
  }

  /** Stops every deliverer, then every agent runner; one that failed to be created or to stop was reported already. */
  async stopAll(): Promise<void> {
    for (const pending of [...this.deliverers.all(), ...this.agents.all()]) {
      try {
        const instance = await pending;
        await instance.stop?.();
      } catch {
        /* already reported */
      }
    }
  }

  /** Starts an enabled deliverer's connectivity check; bad credentials stop startup, an unreachable service only warns. */
  private async startDeliverer(id: string, deliverer: Deliverer): Promise<void> {
    if (!deliverer.start) return;
    try {
      await deliverer.start();
    } catch (err) {
      if (!isRetryable(err)) throw err;
      this.options.logger.warn(`deliverer '${id}' could not be reached at startup (deliveries will be retried): ${errorMessage(err)}`);
    }
  }
}
