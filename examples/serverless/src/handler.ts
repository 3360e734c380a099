// A serverless-style handler: `(event) -> {statusCode, headers, body}` around the core's pipeline. The gateway is
// built once per function instance (on the first call) and reused by later calls.
import { join } from 'node:path';
import { createLogger, loadConfig, openGateway, routeFromUrl, type Gateway, type IngestResult } from '@hookwise/gateway';
import { errorMessage, type HeaderMap } from '@hookwise/core';
import { distributionOptions } from '@hookwise/cli';

/** The request as function platforms hand it over (API-gateway style). */
export interface ServerlessEvent {
  /** e.g. /webhooks/deploys (used when routeName is absent) */
  path?: string;
  /** The route name, when the platform extracts it from the path already. */
  routeName?: string;
  headers?: Record<string, string | undefined> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
}

export interface ServerlessResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export interface ServerlessHandlerOptions {
  /** Default: $HOOKWISE_HOME, else the config/ dir next to this file. */
  configDir?: string;
  env?: NodeJS.ProcessEnv;
  /** Where log lines go (default stdout, which function platforms collect). */
  logStream?: NodeJS.WritableStream;
}

export interface ServerlessHandler {
  handler(event: ServerlessEvent): Promise<ServerlessResult>;
  /** Lets running jobs finish until the deadline and closes the store (instance shutdown, tests). */
  stop(deadlineMs?: number): Promise<void>;
}

async function buildGateway(options: ServerlessHandlerOptions): Promise<Gateway> {
  const env = options.env ?? process.env;
  const loaded = loadConfig({ configDir: options.configDir ?? (env.HOOKWISE_HOME || join(__dirname, '..', 'config')), env });
  // The same assembly as `hookwise gateway run` (its first-party plugins and default sources, store.backend, skills,
  // subscriptions), without the HTTP server.
  const opened = await openGateway(loaded, {
    ...(await distributionOptions()),
    logger: createLogger({ level: loaded.config.log.level, format: 'json', stream: options.logStream }),
  });
  await opened.start();
  return opened.gateway;
}

function toResult(result: IngestResult): ServerlessResult {
  return { statusCode: result.status, headers: { 'content-type': 'application/json; charset=utf-8', ...result.headers }, body: JSON.stringify(result.body) };
}

export function createServerlessHandler(options: ServerlessHandlerOptions = {}): ServerlessHandler {
  let gateway: Promise<Gateway> | undefined;
  const ready = () => {
    gateway ??= buildGateway(options);
    // A failed start is not cached: the next call tries again (and reports the same problem if it persists).
    gateway.catch(() => (gateway = undefined));
    return gateway;
  };
  return {
    async handler(event) {
      let instance: Gateway;
      try {
        instance = await ready();
      } catch (err) {
        console.error(`hookwise could not start: ${errorMessage(err)}`);
        return toResult({ status: 500, body: { error: 'Internal error' } });
      }
      // Node lower-cases header names; function platforms may not.
      const headers: HeaderMap = {};
      for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
      const route = event.routeName ?? routeFromUrl(event.path) ?? '';
      // The exact bytes that were signed: base64-decoded when the platform encoded them.
      const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
      try {
        return toResult(await instance.pipeline.handle({ route, headers, body }));
      } catch (err) {
        instance.logger.error(`webhook handling failed on route '${route}': ${errorMessage(err)}`);
        return toResult({ status: 500, body: { error: 'Internal error' } });
      }
    },
    async stop(deadlineMs = 10_000) {
      const pending = gateway;
      gateway = undefined;
      if (pending) await (await pending).stop(deadlineMs);
    },
  };
}

/** The function's entry point, e.g. `handler: dist/handler.handler`. */
export const handler = createServerlessHandler().handler;
