// What a gateway is made from: the config and its dir, and what the host (the distribution, a test, an embedding
// app) gives besides it: plugins, a store, a logger, dynamic routes, skills, tuning and the default sources.
import type { Logger } from 'winston';
import type { Store } from '@hookwise/core';
import type { HookwiseConfig } from './config/schema';
import type { AgentSandboxesOptions } from './jobs/agent-sandbox';
import type { Redactor } from './observe/logger';
import type { LoadedPlugin } from './plugins/loader';
import type { SkillLibrary } from './plugins/skills';
import type { RouteSource } from './routes/routes';
import type { ScheduleClock } from './schedules/scheduler';

export interface GatewayOptions {
  config: HookwiseConfig;
  configDir: string;
  /**
   * The profile this gateway serves (LoadedConfig.profile): its name is on its log lines, lifecycle webhooks, spans
   * and metrics, and its agents never see the config dir above it. Absent: the default profile (the config dir's own).
   */
  profile?: { name: string; rootDir: string };
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
  /**
   * The sources a route that pins none (`source:` unset) accepts, by id, in the order their headers are read; a
   * listed source no plugin registers is skipped. The distribution chooses them (the hookwise CLI: its
   * DEFAULT_SOURCES); default: `generic` only.
   */
  defaultSources?: readonly string[];
  /**
   * The agent-facing CLI of the distribution (`hookwise` for the hookwise CLI): `dir` is the installation it runs
   * from with its dependencies, made readable inside each run's sandbox so that the agent's `hookwise webhook
   * subscribe` can start. Absent: a run uses whatever CLI the system paths hold, or none.
   */
  agentCli?: { dir: string };
  /** The clock of routes' schedules (tests); default: the process's. */
  scheduleClock?: ScheduleClock;
  /** MCP Events tuning for tests: its clock (subscription expiry, cursors) and how often subscriptions are re-read. */
  mcpEvents?: { clock?: () => number; refreshMs?: number };
}

/** What routes that pin no source accept when the distribution does not say (GatewayOptions.defaultSources). */
export const DEFAULT_SOURCES: readonly string[] = ['generic'];
