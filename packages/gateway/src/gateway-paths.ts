// The two paths of one gateway, built from its services and features: the request path (WebhookPipeline) and
// the job path (WorkerPool), each given the features' hooks. What only the Gateway knows (which sources a route
// that pins none accepts, whether it is shutting down) comes as callbacks.
import { runnerOf, type GatewayFeatures } from './gateway-features';
import type { GatewayServices } from './gateway-services';
import { AuthFailureThrottle } from './ingest/auth-throttle';
import { TrustedProxies, trustedProxyProblem } from './ingest/client-address';
import { WebhookPipeline } from './ingest/pipeline';
import type { NamedSource } from './ingest/pipeline-contract';
import { PreviousEvents } from './jobs/previous-event';
import { WorkerPool } from './jobs/worker';
import { budgetOf, type Route } from './routes/routes';

export interface RequestPathHost {
  /** The sources a route accepts: the one it pins, else the default sources. */
  sourcesFor(route: Route): NamedSource[] | Promise<NamedSource[]>;
  isShuttingDown(): boolean;
}

export function createRequestPath(
  services: GatewayServices,
  features: GatewayFeatures,
  host: RequestPathHost,
): { pipeline: WebhookPipeline; authThrottle: AuthFailureThrottle } {
  const { config, logger } = services;
  const extra = config.platforms.webhook.extra;
  const authThrottle = new AuthFailureThrottle({ limit: extra.auth_failure_limit ?? 60, logger });
  // Bad entries are reported by start(); the valid ones are used meanwhile.
  const proxies = (extra.trusted_proxies ?? []).filter((entry) => trustedProxyProblem(entry) === undefined);
  const pipeline = new WebhookPipeline(
    {
      routes: services.routes,
      lifecycle: services.lifecycle,
      sourcesFor: host.sourcesFor,
      publicUrl: extra.public_url?.replace(/\/+$/, ''),
      store: services.store,
      limits: { rateLimit: extra.rate_limit, maxBodyBytes: extra.max_body_bytes, maxPending: config.store.max_pending },
      logger,
      isShuttingDown: host.isShuttingDown,
      authThrottle,
      trustedProxies: proxies.length ? new TrustedProxies(proxies) : undefined,
      storeStatus: services.storeStatus,
    },
    features.ingestHooks,
  );
  return { pipeline, authThrottle };
}

export function createJobPath(services: GatewayServices, features: GatewayFeatures, tuning: { leaseMs?: number; pollMs?: number }): WorkerPool {
  const { config, logger, instances, store } = services;
  return new WorkerPool({
    jobs: store.jobs,
    routes: services.routes,
    agentFor: (route) => instances.agentFor(route),
    runnerOf: (route) => runnerOf(route, config),
    delivererById: (id) => instances.delivererById(id),
    skillsFor: (route) => route.skills.flatMap((name) => services.skills?.get(name) ?? []),
    retry: services.retry,
    concurrency: config.agent.concurrency,
    agentTimeoutMs: config.agent.timeout_seconds * 1000,
    logger,
    leaseMs: tuning.leaseMs,
    pollMs: tuning.pollMs,
    lifecycle: services.lifecycle,
    storeStatus: services.storeStatus,
    counters: store.counters,
    budget: budgetOf(config.agent.budget),
    silentMarker: config.agent.silent_marker,
    sandboxes: services.sandboxes,
    outbound: services.outbound,
    // {__previous__} of a route's templates: kept in the memos beside the plugins' (durable with SQLite and Redis).
    previous: new PreviousEvents(services.memos, store.jobs, logger),
    hooks: features.jobHooks,
  });
}
