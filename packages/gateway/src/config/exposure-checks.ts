// Settings that load and start fine but let someone other than the operator decide something: an operator
// surface (the admin API, the dashboard, /metrics) without a token on an address others can reach, and a
// delivery target filled from the webhook payload on a platform without `allowed_targets` (the sender then
// chooses where the answer goes). The gateway logs each at startup as a warning; `hookwise doctor` lists them.
import type { RouteDestination } from '@hookwise/core';
import type { HookwiseConfig } from './schema';
import { isLoopbackHost } from '../routes/route-problems';

export interface ExposureFinding {
  /** What the finding is about, as doctor names its checks: `admin`, `metrics`, `route 'x'`. */
  check: string;
  detail: string;
  fix: string;
}

/** What the checks need to know of a route's destination's deliverer. */
export interface TargetPolicy {
  /** Whether the deliverer checks its targets against `allowed_targets` (every messaging platform does). */
  supportsAllowedTargets: boolean;
  /** The platform's `allowed_targets`, as configured (undefined or empty: any target). */
  allowedTargets?: unknown;
  /** Where the platform's block is in config.yaml (`telegram`, or the alias the user wrote). */
  platformKey: string;
}

/**
 * The deliver_extra keys a deliverer reads as where to send: the messaging platforms (e-mail included, whose
 * recipient is chat_id too) take their target from chat_id, else home_channel (always allowed).
 */
export const TARGET_KEYS = ['chat_id'] as const;

// The same placeholder syntax as core's templates: a value with one is filled from the payload per event.
const PLACEHOLDER = /\{[A-Za-z0-9_$@-]+(?:\.[A-Za-z0-9_$@-]+)*\}/;

/** Whether a deliver_extra value is filled from the event (the __name__ vars are the gateway's own). */
function fromPayload(value: string | undefined): boolean {
  if (!value) return false;
  const placeholders = value.match(new RegExp(PLACEHOLDER.source, 'g')) ?? [];
  return placeholders.some((p) => !/^\{__[A-Za-z0-9_]+__\}$/.test(p));
}

function surfaceFindings(config: HookwiseConfig): ExposureFinding[] {
  const host = config.platforms.webhook.extra.host;
  if (isLoopbackHost(host)) return [];
  const findings: ExposureFinding[] = [];
  const admin = config.admin;
  if (admin && (admin.enabled || admin.ui) && !admin.token) {
    const what = admin.ui === true ? 'the admin API (/api) and the dashboard (/ui)' : 'the admin API (/api)';
    findings.push({
      check: 'admin',
      detail: `${what} run without admin.token while the gateway binds ${host}: they serve clients that look local, and behind a reverse proxy that rewrites Host and adds no X-Forwarded-For header every client looks local`,
      fix: 'set admin.token: ${HOOKWISE_ADMIN_TOKEN} with HOOKWISE_ADMIN_TOKEN (16+ characters) in .env, or bind 127.0.0.1 (platforms.webhook.extra.host)',
    });
  }
  if (config.metrics?.enabled === true && !config.metrics.token) {
    findings.push({
      check: 'metrics',
      detail: `/metrics runs without metrics.token while the gateway binds ${host}: anyone who can reach the port reads route names and traffic`,
      fix: 'set metrics.token (16+ characters, from .env), or bind 127.0.0.1 (platforms.webhook.extra.host)',
    });
  }
  return findings;
}

/** Routes whose payload picks a destination's target on a platform that does not limit the targets. */
function targetFindings(
  routes: Iterable<{ name: string; destinations: RouteDestination[] }>,
  policyOf: (to: string) => TargetPolicy | undefined,
): ExposureFinding[] {
  const findings: ExposureFinding[] = [];
  for (const route of routes) {
    for (const destination of route.destinations) {
      const policy = policyOf(destination.to);
      if (!policy?.supportsAllowedTargets) continue;
      const allowed = policy.allowedTargets;
      if (Array.isArray(allowed) && allowed.length > 0) continue;
      for (const key of TARGET_KEYS) {
        const value = destination.extra?.[key];
        if (!fromPayload(value)) continue;
        findings.push({
          check: `route '${route.name}'`,
          detail: `deliver_extra.${key} "${value}" is filled from the webhook payload and platforms.${policy.platformKey} has no allowed_targets: whoever sends the webhook chooses where the answer goes (${destination.to})`,
          fix: `list the ${key} values it may take in platforms.${policy.platformKey}.allowed_targets (exact ids or /regex/), or set a fixed ${key}`,
        });
      }
    }
  }
  return findings;
}

/** Every finding, surfaces first. `policyOf` answers for a deliverer id or alias (undefined: unknown deliverer). */
export function exposureFindings(
  config: HookwiseConfig,
  routes: Iterable<{ name: string; destinations: RouteDestination[] }>,
  policyOf: (to: string) => TargetPolicy | undefined,
): ExposureFinding[] {
  return [...surfaceFindings(config), ...targetFindings(routes, policyOf)];
}

/** A finding as one log line. */
export function exposureWarningLine(finding: ExposureFinding): string {
  return `${finding.check === 'admin' || finding.check === 'metrics' ? '' : `${finding.check}: `}${finding.detail}; ${finding.fix}`;
}
