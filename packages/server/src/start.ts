// Serves a gateway over HTTP: the gateway comes from openGateway (@hookwise/gateway), this adds the HTTP server,
// its timeouts, the listening line and a graceful close; runGateway adds the signals.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  dotenvModeProblem,
  loadConfig,
  openGateway,
  removeRunFile,
  runFilePath,
  writeRunFile,
  type Gateway,
  type GatewayObservability,
  type LoadedConfig,
  type LogFormat,
  type OpenedGateway,
  type OpenGatewayOptions,
  type RouteSource,
} from '@hookwise/gateway';
import { HookwiseConfigError } from '@hookwise/core';
import type { Logger } from 'winston';
import { withAccessLog } from './access-log';
import { createApp, createRequestListener, type IngestPath } from './app';
import { watchConfigFile, type ConfigWatcher } from './config-watch';
import { HostedProfiles, openProfileGateways } from './hosted-profiles';
import { startedByPackageRunner, watchParent } from './parent-watch';

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
  /** Plugin loader overrides (tests). */
  loader?: OpenGatewayOptions['loader'];
  /** The distribution's plugins, loaded by the caller (the hookwise CLI passes its first-party list); default none. */
  firstParty?: OpenGatewayOptions['firstParty'];
  /** The distribution's sources for routes that pin none (the hookwise CLI passes its DEFAULT_SOURCES). */
  defaultSources?: OpenGatewayOptions['defaultSources'];
  /** The distribution's agent CLI, readable in each run's sandbox (the hookwise CLI passes its own installation). */
  agentCli?: OpenGatewayOptions['agentCli'];
  /** Worker tuning for tests. */
  leaseMs?: number;
  pollMs?: number;
  /** The clock of routes' schedules (tests move it). */
  scheduleClock?: OpenGatewayOptions['scheduleClock'];
}

export interface RunningGateway {
  gateway: Gateway;
  server: Server;
  loaded: LoadedConfig;
  /** e.g. http://127.0.0.1:8644 */
  url: string;
  port: number;
  /** What metrics:, tracing: and admin: turned on (the Prometheus registry, the activity journal). */
  observability?: GatewayObservability;
  /** Every gateway served, by profile: the default one (`gateway`) first, then one per profile of the config dir. */
  profiles: HostedProfiles;
  /** Logs that config.yaml (the config dir's or a profile's) changed and needs a restart; undefined without any. */
  configWatcher?: ConfigWatcher;
  /** Graceful stop: no new connections, running jobs finish until the deadline. */
  close(deadlineMs?: number): Promise<{ unfinished: string[] }>;
}

export async function startGateway(options: StartOptions = {}): Promise<RunningGateway> {
  const loaded = loadConfig({ configDir: options.configDir, env: options.env });
  const { config, configDir } = loaded;
  const extra = config.platforms.webhook.extra;
  if (options.port !== undefined) extra.port = options.port;
  if (options.host !== undefined) extra.host = options.host;
  // Checked before any plugin loads or the store opens: nothing would be served.
  if (!config.platforms.webhook.enabled) {
    throw new HookwiseConfigError(
      [
        `platforms.webhook.enabled is false in ${loaded.configFile ?? `${configDir} (no config.yaml)`}: run \`hookwise gateway setup\`, or set WEBHOOK_ENABLED=true`,
      ],
      'the webhook adapter is disabled',
    );
  }
  const gatewayOptions: OpenGatewayOptions = {
    logger: options.logger,
    logLevel: options.logLevel,
    logFormat: options.logFormat,
    logStream: options.logStream,
    loader: options.loader,
    firstParty: options.firstParty,
    defaultSources: options.defaultSources,
    agentCli: options.agentCli,
    leaseMs: options.leaseMs,
    pollMs: options.pollMs,
    scheduleClock: options.scheduleClock,
  };
  const opened = await openGateway(loaded, { ...gatewayOptions, routeSource: options.routeSource });
  const { gateway, logger } = opened;
  await opened.start();
  let profileGateways: OpenedGateway[];
  try {
    profileGateways = await openProfileGateways(loaded, options.env, gatewayOptions, logger);
  } catch (err) {
    await opened.close(0);
    throw err;
  }
  const everyGateway = [opened, ...profileGateways];
  const hosted = new HostedProfiles(
    everyGateway.map((one) => ({ name: one.gateway.profile, gateway: one.gateway, loaded: one.loaded, observability: one.observability })),
  );
  const closeGateways = async (deadlineMs?: number) => {
    const results = await Promise.all(everyGateway.map((one) => one.close(deadlineMs)));
    return { unfinished: results.flatMap((result) => result.unfinished) };
  };

  const app = createApp(hosted);
  const listener = createRequestListener(hosted, app, options.ingest);
  // log.access (default on): one line per request, from the lifecycle events; off, the listener is untouched.
  const server = createServer(config.log.access === false ? listener : withAccessLog(listener, gateway, logger, options.logFormat ?? config.log.format));
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
    await closeGateways(0);
    if (err.code === 'EADDRINUSE') {
      throw new HookwiseConfigError(
        [`port ${extra.port} on ${extra.host} is already in use: stop the other process or choose another port (--port, WEBHOOK_PORT)`],
        'the gateway cannot start',
      );
    }
    throw err;
  });
  const port = (server.address() as AddressInfo).port;
  // The admin API, the dashboard and /metrics share this listener: no agent of any profile may reach it through the egress proxy.
  for (const one of everyGateway) one.gateway.sandboxes.refuseListeners([{ host: extra.host, port }]);
  const shownHost = extra.host === '0.0.0.0' || extra.host === '::' ? 'localhost' : extra.host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
  const routes = gateway.routes.all().map((r) => r.name);
  logger.info(
    `Hookwise gateway listening on ${url} (bound to ${extra.host}); routes: ${routes.length ? routes.join(', ') : '(none yet: hookwise webhook subscribe)'}`,
  );
  for (const one of profileGateways) {
    const names = one.gateway.routes.all().map((r) => r.name);
    one.logger.info(
      `profile '${one.gateway.profile}' served at ${url}/p/${one.gateway.profile}/webhooks/<route>; routes: ${names.length ? names.join(', ') : '(none yet)'}`,
    );
  }
  const watchers = everyGateway
    .filter((one) => one.loaded.configFile)
    .map((one) => watchConfigFile({ file: one.loaded.configFile!, configDir, profile: one.loaded.profile?.name, env: options.env, logger: one.logger }));
  const configWatcher: ConfigWatcher | undefined = watchers.length
    ? { check: (reason) => watchers.forEach((w) => w.check(reason)), close: () => watchers.forEach((w) => w.close()) }
    : undefined;

  let closing: Promise<{ unfinished: string[] }> | undefined;
  const close = (deadlineMs = (extra.shutdown_timeout_seconds ?? 10) * 1000) => {
    closing ??= (async () => {
      configWatcher?.close();
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const result = await closeGateways(deadlineMs);
      server.closeAllConnections();
      await serverClosed;
      return result;
    })();
    return closing;
  };
  return { gateway, server, loaded, url, port, observability: opened.observability, profiles: hosted, configWatcher, close };
}

/**
 * Runs until SIGTERM/SIGINT (or, when npx/npm started it, until that parent is gone), then shuts down gracefully
 * and says what was left. Writes `<config_dir>/gateway.run.json` (pid and address) while it serves.
 */
export async function runGateway(options: StartOptions = {}): Promise<RunningGateway> {
  // SIGHUP would end the process (node's default), also while it starts; config.yaml is not reloaded, so the
  // handler says whether a restart is needed. Registered first: a SIGHUP during startup must not kill it either.
  const state: { running?: RunningGateway } = {};
  process.on('SIGHUP', () => {
    const started = state.running;
    if (!started) return; // the config being loaded is the one on disk now
    if (started.configWatcher) started.configWatcher.check('SIGHUP received');
    else started.gateway.logger.info('SIGHUP received: the gateway runs without a config.yaml; nothing to apply');
  });
  const running = await startGateway(options);
  state.running = running;
  const { logger } = running.gateway;
  const { configDir } = running.loaded;
  const envProblem = dotenvModeProblem(configDir);
  if (envProblem) logger.warn(envProblem);
  const extra = running.loaded.config.platforms.webhook.extra;
  try {
    writeRunFile(configDir, {
      pid: process.pid,
      url: localUrl(extra.host, running.port),
      host: extra.host,
      port: running.port,
      started_at: new Date().toISOString(),
    });
  } catch (err) {
    // A read-only config dir: `webhook test` then takes the port from the config.
    logger.debug(`could not write ${runFilePath(configDir)}: ${(err as Error).message}`);
  }
  // A crash or process.exit() elsewhere: the file must not outlive the process.
  process.once('exit', () => removeRunFile(configDir));

  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    const seconds = running.loaded.config.platforms.webhook.extra.shutdown_timeout_seconds ?? 10;
    logger.info(`${why}: no new webhooks; letting running jobs finish (up to ${seconds} s)`);
    void running.close(seconds * 1000).then(({ unfinished }) => {
      removeRunFile(configDir);
      if (unfinished.length) logger.warn(`${unfinished.length} job(s) unfinished at shutdown; they stay pending for the next start: ${unfinished.join(', ')}`);
      else logger.info('all running jobs finished; bye');
      process.exit(0);
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM received'));
  process.once('SIGINT', () => stop('SIGINT received'));
  if (startedByPackageRunner()) {
    watchParent((parent) => stop(`the process that started the gateway (pid ${parent}: npx, npm or a script runner) ended`));
  }
  return running;
}

/** Where a client on this machine reaches a gateway bound to `host` (loopback for the any-address binds). */
function localUrl(host: string, port: number): string {
  const local = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${local.includes(':') ? `[${local}]` : local}:${port}`;
}
