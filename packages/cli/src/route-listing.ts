// Every route a gateway with this config dir serves, static (config.yaml) and dynamic (subscriptions), with where
// its secret comes from: never the secret itself. Shared by `routes list` and `doctor`.
import {
  INSECURE_NO_AUTH,
  readSubscriptions,
  routeDefaults,
  staticRoutes,
  subscriptionProblems,
  toRoute,
  type LoadedConfig,
  type Route,
  type RouteConfig,
} from '@hookwise/gateway';
import { publicBaseUrl, webhookUrl } from './webhook-url';

export interface ListedRoute {
  name: string;
  origin: 'static' | 'subscription';
  /** active; disabled (enabled: false); hidden (a subscription under a static route's name); invalid (skipped). */
  status: 'active' | 'disabled' | 'hidden' | 'invalid';
  url: string;
  /** The pinned sender style, or "any" (GitHub, GitLab or generic, by their headers). */
  source: string;
  events: string[];
  deliver: string;
  /** Where the secret that verifies the route comes from. */
  secret: 'route' | 'subscription' | 'global' | 'none' | 'INSECURE_NO_AUTH';
  /** How many secrets verify it (2 or more while rotating). */
  secret_count: number;
  description?: string;
  problems: string[];
  /** The route as the gateway builds it (not in --json: it holds the secrets). */
  route?: Route;
}

function secretOrigin(route: Route): ListedRoute['secret'] {
  if (route.secret === INSECURE_NO_AUTH) return 'INSECURE_NO_AUTH';
  return route.secretOrigin ?? 'none';
}

function listed(route: Route, status: ListedRoute['status'], at: { base: string; profile?: string }, problems: string[]): ListedRoute {
  return {
    name: route.name,
    origin: route.origin,
    status,
    url: webhookUrl(at.base, route.name, at.profile),
    source: route.source ?? 'any',
    events: route.events,
    deliver: route.deliver,
    secret: secretOrigin(route),
    secret_count: route.secret === INSECURE_NO_AUTH ? 0 : route.secrets.length,
    ...(route.description ? { description: route.description } : {}),
    problems,
    route,
  };
}

/** The routes of a config dir, or of a profile (`loaded.profile`: its URLs are under /p/<profile>/). */
export function listRoutes(loaded: Pick<LoadedConfig, 'config' | 'configDir' | 'profile'>): ListedRoute[] {
  const { config, configDir } = loaded;
  const at = { base: publicBaseUrl(config), profile: loaded.profile?.name };
  const defaults = routeDefaults(config);
  const out: ListedRoute[] = [];
  const statics = staticRoutes(config);
  for (const [name, entry] of Object.entries(config.platforms.webhook.extra.routes ?? {})) {
    const route = statics.get(name) ?? toRoute(name, entry, 'static', defaults);
    // A disabled route is not served: no secret yet is no problem (a profile's starter route is one such).
    const disabled = entry.enabled === false;
    out.push(listed(route, disabled ? 'disabled' : 'active', at, route.secret || disabled ? [] : [`route '${name}' has no secret`]));
  }
  for (const [name, raw] of Object.entries(readSubscriptions(configDir)).sort(([a], [b]) => a.localeCompare(b))) {
    const problems = subscriptionProblems(name, raw, defaults);
    const entry = (typeof raw === 'object' && raw !== null ? raw : {}) as RouteConfig;
    const route = toRoute(name, { ...entry, events: Array.isArray(entry.events) ? entry.events : [] }, 'subscription', defaults);
    const status = problems.length ? 'invalid' : statics.has(name) ? 'hidden' : 'active';
    if (status === 'hidden') problems.push(`a static route named '${name}' in config.yaml takes precedence`);
    out.push(listed(route, status, at, problems));
  }
  return out;
}

/** The secret column as a person reads it. */
export function describeSecret(route: Pick<ListedRoute, 'secret' | 'secret_count'>): string {
  const rotating = route.secret_count > 1 ? ` (${route.secret_count}, rotating)` : '';
  switch (route.secret) {
    case 'route':
      return `route's own${rotating}`;
    case 'subscription':
      return `subscription's own${rotating}`;
    case 'global':
      return `global${rotating}`;
    case 'INSECURE_NO_AUTH':
      return 'none (INSECURE_NO_AUTH)';
    default:
      return 'MISSING';
  }
}
