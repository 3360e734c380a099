// The one composition root: config dir -> config, logger, plugins, skills, store, subscriptions -> a Gateway. The
// HTTP server, every CLI command and embedding apps assemble a gateway here, so they all check the same things.
import { join } from 'node:path';
import type { Logger } from 'winston';
import type { Store } from '@hookwise/core';
import type { HookwiseConfig } from './config/schema';
import { loadConfig, type LoadedConfig } from './config/load';
import { Gateway } from './gateway';
import type { GatewayOptions } from './gateway-options';
import { loadPlugins, type LoadPluginsOptions, type LoadedPlugin } from './plugins/loader';
import { Redactor, createLogger, type LogFormat } from './observe/logger';
import { observeGateway, type GatewayObservability } from './observe/observability';
import { routeDefaults, type RouteSource } from './routes/routes';
import { BUILTIN_SKILLS_DIR, DirectorySkillLibrary } from './plugins/skills';
import { openStoreBackend } from './plugins/store-backend';
import { createSubscriptionSource } from './routes/subscriptions';

export interface OpenGatewayOptions {
  /** The environment for `.env` and `${VAR}` (default process.env); ignored when a LoadedConfig is given. */
  env?: NodeJS.ProcessEnv;
  /** A ready logger; otherwise one is built from `log:` and the three options below. */
  logger?: Logger;
  logLevel?: string;
  logFormat?: LogFormat;
  /** Where log lines go (default stdout). */
  logStream?: NodeJS.WritableStream;
  /**
   * The distribution's plugins, registered before the config's `plugins:` (default none). The gateway depends on no
   * plugin, so it cannot resolve them: the caller loads them from where it is installed (the hookwise CLI passes its
   * FIRST_PARTY_PLUGINS, loaded by `loadFirstPartyPlugins()` of @hookwise/cli).
   */
  firstParty?: readonly LoadedPlugin[];
  /** The distribution's sources for routes that pin none (GatewayOptions.defaultSources; the hookwise CLI passes its own). */
  defaultSources?: GatewayOptions['defaultSources'];
  /** The distribution's agent CLI, readable in each run's sandbox (GatewayOptions.agentCli). */
  agentCli?: GatewayOptions['agentCli'];
  /** Plugins an embedding app defines itself, registered after the loaded ones. */
  plugins?: readonly LoadedPlugin[];
  /** Loader overrides (tests, bundlers): working directory, CommonJS and ESM loaders. */
  loader?: Pick<LoadPluginsOptions, 'cwd' | 'requireFn' | 'importFn'>;
  /** A ready store instead of `store.backend` (the CLI's route checks pass a memory store, never opening the real one). */
  store?: Store;
  /** Dynamic routes; default the config dir's webhook_subscriptions.json; null for static routes only. */
  routeSource?: RouteSource | null;
  /** Worker tuning (tests); default `store.lease_seconds`. */
  leaseMs?: number;
  pollMs?: number;
  /** The clock of routes' schedules (tests). */
  scheduleClock?: GatewayOptions['scheduleClock'];
}

export interface OpenedGateway {
  loaded: LoadedConfig;
  gateway: Gateway;
  logger: Logger;
  redactor: Redactor;
  skills: DirectorySkillLibrary;
  /** Every plugin registered besides the built-ins, in order (a store package named by `store.backend` included). */
  plugins: LoadedPlugin[];
  /** What `metrics:`, `tracing:` and `admin:` turned on, attached by start() before the workers run. */
  observability?: GatewayObservability;
  /** Validates the routes, creates what they use and starts the workers; on failure the store is closed. */
  start(): Promise<void>;
  /** Stops the gateway (running jobs finish until the deadline) and closes the store. */
  close(deadlineMs?: number): Promise<{ unfinished: string[] }>;
}

export interface OpenedStore {
  loaded: LoadedConfig;
  store: Store;
  logger: Logger;
  close(): Promise<void>;
}

/** Where skills are read, first match wins: <config_dir>/skills, `skills.dirs`, then the built-in skills. */
export function skillDirs(config: HookwiseConfig, configDir: string): string[] {
  return [join(configDir, 'skills'), ...(config.skills.dirs ?? []).map((d) => join(configDir, d)), BUILTIN_SKILLS_DIR];
}

function loadedFrom(source: string | LoadedConfig | undefined, env: NodeJS.ProcessEnv | undefined): LoadedConfig {
  return typeof source === 'object' ? source : loadConfig({ configDir: source, env });
}

/** The steps every caller shares: logger, plugins, store. */
async function openParts(loaded: LoadedConfig, options: OpenGatewayOptions, signal: AbortSignal) {
  const { config, configDir } = loaded;
  const redactor = new Redactor();
  const profile = loaded.profile?.name;
  // A profile's gateway names its profile on every line; a ready logger is shared, so its lines get a child's.
  const logger =
    (profile !== undefined && options.logger ? options.logger.child({ profile }) : options.logger) ??
    createLogger({ level: options.logLevel ?? config.log.level, format: options.logFormat ?? config.log.format, redactor, stream: options.logStream, profile });
  // `plugins` is set in the config dir's own config.yaml only, so a path in it is relative to that dir, also for a profile.
  const load: LoadPluginsOptions = { configDir: loaded.profile?.rootDir ?? configDir, ...options.loader };
  const configured = await loadPlugins(config.plugins, load);
  const plugins = [...(options.firstParty ?? []), ...configured, ...(options.plugins ?? [])];
  if (options.store) return { redactor, logger, plugins, store: options.store };
  const opened = await openStoreBackend({
    config: config.store,
    plugins,
    load,
    ctx: { logger, configDir, env: loaded.env, signal, redact: (secret) => redactor.add(secret) },
  });
  logger.debug(`store: ${opened.id} (${opened.pluginName})`);
  return { redactor, logger, plugins: opened.plugins, store: opened.store };
}

/**
 * Assembles a gateway from a config dir (or a config already loaded and adjusted, as the server does with --port),
 * without starting it: call `start()` to serve, or use `gateway.routeProblems()` and friends to check.
 */
export async function openGateway(source: string | LoadedConfig | undefined, options: OpenGatewayOptions = {}): Promise<OpenedGateway> {
  const loaded = loadedFrom(source, options.env);
  const { config, configDir } = loaded;
  // Aborted once the gateway has stopped: what the store plugin started with it may end.
  const lifetime = new AbortController();
  const { redactor, logger, plugins, store } = await openParts(loaded, options, lifetime.signal);
  const skills = new DirectorySkillLibrary(skillDirs(config, configDir));
  for (const problem of skills.problems) logger.warn(problem);
  const routeSource =
    options.routeSource === null ? undefined : (options.routeSource ?? createSubscriptionSource({ configDir, defaults: routeDefaults(config), logger }));
  const gateway = new Gateway({
    config,
    configDir,
    profile: loaded.profile,
    env: loaded.env,
    plugins,
    store,
    logger,
    redactor,
    skills,
    routeSource,
    leaseMs: options.leaseMs ?? (config.store.lease_seconds === undefined ? undefined : config.store.lease_seconds * 1000),
    pollMs: options.pollMs,
    defaultSources: options.defaultSources,
    agentCli: options.agentCli,
    scheduleClock: options.scheduleClock,
  });
  let closing: Promise<{ unfinished: string[] }> | undefined;
  const close = (deadlineMs?: number) => {
    // Listeners stay until the running jobs have finished, so that their last events are counted.
    closing ??= gateway.stop(deadlineMs).finally(() => {
      opened.observability?.close();
      lifetime.abort();
    });
    return closing;
  };
  const opened: OpenedGateway = {
    loaded,
    gateway,
    logger,
    redactor,
    skills,
    plugins,
    async start() {
      try {
        // Before the workers start: jobs left from the last run are counted and traced too.
        opened.observability ??= observeGateway(gateway);
        await gateway.start();
      } catch (err) {
        opened.observability?.close();
        opened.observability = undefined;
        await store.close().catch(() => undefined);
        lifetime.abort();
        throw err;
      }
    },
    close,
  };
  return opened;
}

/** Only the configured store (with the plugins that may provide it): the CLI's `deliveries` commands read jobs with it. */
export async function openConfiguredStore(source: string | LoadedConfig | undefined, options: Omit<OpenGatewayOptions, 'store'> = {}): Promise<OpenedStore> {
  const loaded = loadedFrom(source, options.env);
  const lifetime = new AbortController();
  const { store, logger } = await openParts(loaded, options, lifetime.signal);
  return {
    loaded,
    store,
    logger,
    close: () => store.close().finally(() => lifetime.abort()),
  };
}
