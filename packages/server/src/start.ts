// Starts a gateway from a config dir: config, logger, plugins, store, skills, routes, HTTP server, shutdown.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { BUILTIN_SKILLS_DIR, DirectorySkillLibrary, Gateway, Redactor, createLogger, loadConfig, loadPlugins, type HookwiseConfig, type LoadedConfig, type LogFormat, type RouteSource } from '@hookwise/gateway';
import { HookwiseConfigError } from '@hookwise/core';
import type { Logger } from 'winston';
import { createApp, createRequestListener, type IngestPath } from './app';
import { FIRST_PARTY_PLUGINS } from './first-party';
import { createStoreFor } from './store';

export interface StartOptions {
  configDir?: string;
  env?: NodeJS.ProcessEnv;
  port?: number;
  host?: string;
  logLevel?: string;
  logFormat?: LogFormat;
  /** Where log lines go (default stdout). */
  logStream?: NodeJS.WritableStream;
  /** A ready logger instead of one built from the options above. */
  logger?: Logger;
  /** Dynamic routes; by default the config dir's webhook_subscriptions.json. */
  routeSource?: RouteSource;
  /** How webhook POSTs reach the pipeline (default 'direct'; 'express' is kept for comparison, see docs/performance.md). */
  ingest?: IngestPath;
  /** Worker tuning for tests. */
  leaseMs?: number;
  pollMs?: number;
}

export interface RunningGateway {
  gateway: Gateway;
  server: Server;
  loaded: LoadedConfig;
  /** e.g. http://127.0.0.1:8644 */
  url: string;
  port: number;
  /** Graceful stop: no new connections, running jobs finish until the deadline. */
  close(deadlineMs?: number): Promise<{ unfinished: string[] }>;
}

export function skillDirs(config: HookwiseConfig, configDir: string): string[] {
  return [join(configDir, 'skills'), ...(config.skills.dirs ?? []).map((d) => join(configDir, d)), BUILTIN_SKILLS_DIR];
}

/** The dynamic route source, when the subscriptions module provides one. */
function defaultRouteSource(loaded: LoadedConfig, logger: Logger): RouteSource | undefined {
  const core = require('@hookwise/gateway') as { createSubscriptionSource?: (o: { configDir: string; globalSecret?: string; logger: Logger }) => RouteSource };
  return core.createSubscriptionSource?.({ configDir: loaded.configDir, globalSecret: loaded.config.platforms.webhook.extra.secret, logger });
}

export async function startGateway(options: StartOptions = {}): Promise<RunningGateway> {
  const loaded = loadConfig({ configDir: options.configDir, env: options.env });
  const { config, configDir } = loaded;
  const extra = config.platforms.webhook.extra;
  if (options.port !== undefined) extra.port = options.port;
  if (options.host !== undefined) extra.host = options.host;
  if (!config.platforms.webhook.enabled) {
    throw new HookwiseConfigError(
      [`platforms.webhook.enabled is false in ${loaded.configFile ?? `${configDir} (no config.yaml)`}: run \`hookwise gateway setup\`, or set WEBHOOK_ENABLED=true`],
      'the webhook adapter is disabled',
    );
  }
  const redactor = new Redactor();
  const logger =
    options.logger ??
    createLogger({ level: options.logLevel ?? config.log.level, format: options.logFormat ?? config.log.format, redactor, stream: options.logStream });
  const plugins = loadPlugins([...FIRST_PARTY_PLUGINS, ...config.plugins], { configDir, requireFn: require });
  const skills = new DirectorySkillLibrary(skillDirs(config, configDir));
  for (const problem of skills.problems) logger.warn(problem);
  const store = await createStoreFor(config, configDir, logger);
  const routeSource = options.routeSource ?? defaultRouteSource(loaded, logger);
  const gateway = new Gateway({
    config,
    configDir,
    env: loaded.env,
    plugins,
    store,
    logger,
    redactor,
    skills,
    routeSource,
    leaseMs: options.leaseMs ?? (config.store.lease_seconds === undefined ? undefined : config.store.lease_seconds * 1000),
    pollMs: options.pollMs,
  });
  try {
    await gateway.start();
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }

  const app = createApp(gateway);
  const server = createServer(createRequestListener(gateway, app, options.ingest));
  // Slow or stalled senders must not hold connections forever.
  server.headersTimeout = 15_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(extra.port, extra.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (err: NodeJS.ErrnoException) => {
    await gateway.stop(0);
    if (err.code === 'EADDRINUSE') {
      throw new HookwiseConfigError([`port ${extra.port} on ${extra.host} is already in use: stop the other process or choose another port (--port, WEBHOOK_PORT)`], 'the gateway cannot start');
    }
    throw err;
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = extra.host === '0.0.0.0' || extra.host === '::' ? 'localhost' : extra.host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
  const routes = gateway.routes.all().map((r) => r.name);
  logger.info(`Hookwise gateway listening on ${url} (bound to ${extra.host}); routes: ${routes.length ? routes.join(', ') : '(none yet: hookwise webhook subscribe)'}`);

  let closing: Promise<{ unfinished: string[] }> | undefined;
  const close = (deadlineMs = (extra.shutdown_timeout_seconds ?? 10) * 1000) => {
    closing ??= (async () => {
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const result = await gateway.stop(deadlineMs);
      server.closeAllConnections();
      await serverClosed;
      return result;
    })();
    return closing;
  };
  return { gateway, server, loaded, url, port, close };
}

/** Runs until SIGTERM/SIGINT, then shuts down gracefully and says what was left. */
export async function runGateway(options: StartOptions = {}): Promise<RunningGateway> {
  const running = await startGateway(options);
  const { logger } = running.gateway;
  const onSignal = (signal: NodeJS.Signals) => {
    const seconds = running.loaded.config.platforms.webhook.extra.shutdown_timeout_seconds ?? 10;
    logger.info(`${signal} received: no new webhooks; letting running jobs finish (up to ${seconds} s)`);
    void running.close(seconds * 1000).then(({ unfinished }) => {
      if (unfinished.length) logger.warn(`${unfinished.length} job(s) unfinished at shutdown; they stay pending for the next start: ${unfinished.join(', ')}`);
      else logger.info('all running jobs finished; bye');
      process.exit(0);
    });
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  return running;
}
