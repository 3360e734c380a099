// Attaches what `metrics:`, `tracing:` and `admin:` turn on to a gateway's lifecycle: the Prometheus registry, the
// OpenTelemetry spans and the dashboard's activity journal. Nothing is attached (or loaded) for what is off.
import { HookwiseConfigError } from '@hookwise/core';
import { ActivityJournal } from './activity-journal';
import type { HookwiseConfig } from '../config/schema';
import type { ObservedGateway } from './observed-gateway';
import { createGatewayMetrics, type GatewayMetrics } from './metrics';
import { traceGateway, type GatewayTracing } from './tracing';

export interface GatewayObservability {
  /** The Prometheus registry behind /metrics (metrics.enabled). */
  metrics?: GatewayMetrics;
  /** Recent activity for the admin API and the dashboard (admin.enabled or admin.ui). */
  journal?: ActivityJournal;
  tracing?: GatewayTracing;
  close(): void;
}

const MIN_TOKEN_LENGTH = 16;

/** Whether the admin API is served: `admin.enabled`, or `admin.ui`, which needs it. */
export function adminApiEnabled(config: HookwiseConfig): boolean {
  return config.admin?.enabled === true || config.admin?.ui === true;
}

/** Tokens too short to resist guessing; the config schema cannot say so without ajv at run time. */
export function observabilityProblems(config: HookwiseConfig): string[] {
  const problems: string[] = [];
  for (const [key, token] of [
    ['admin.token', config.admin?.token],
    ['metrics.token', config.metrics?.token],
  ] as const) {
    if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
      problems.push(`${key} is ${token.length} characters long: use at least ${MIN_TOKEN_LENGTH} (e.g. \`openssl rand -hex 24\`), kept in .env`);
    }
  }
  return problems;
}

export function observeGateway(gateway: ObservedGateway, config: HookwiseConfig = gateway.config): GatewayObservability {
  const problems = observabilityProblems(config);
  if (problems.length) throw new HookwiseConfigError(problems, 'the gateway cannot start');
  // Tokens are secrets like any other: a log line that happens to contain one is scrubbed.
  gateway.redactor.add(config.admin?.token);
  gateway.redactor.add(config.metrics?.token);
  const metrics = config.metrics?.enabled ? createGatewayMetrics(gateway, { maxRouteLabels: config.metrics.max_route_labels }) : undefined;
  const journal = adminApiEnabled(config)
    ? new ActivityJournal(gateway.lifecycle, { isSecret: (value) => gateway.redactor.redact(value) !== value })
    : undefined;
  const tracing = config.tracing?.enabled ? traceGateway(gateway) : undefined;
  return {
    metrics,
    journal,
    tracing,
    close() {
      metrics?.close();
      journal?.close();
      tracing?.close();
    },
  };
}
