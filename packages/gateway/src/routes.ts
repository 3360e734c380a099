// The route table: static routes from config.yaml, then dynamic subscriptions (static wins on a name clash).
import { ROUTE_NAME_PATTERN, type HookwiseConfig, type RouteConfig } from './config/schema';

export interface Route {
  name: string;
  source: 'static' | 'subscription';
  description?: string;
  events: string[];
  /** The route's own secret, else the global one; undefined only for an invalid (refused) route. */
  secret?: string;
  prompt?: string;
  skills: string[];
  deliver: string;
  deliverExtra: Record<string, string>;
  agent?: { runner?: string; [key: string]: unknown };
}

/** Where dynamic routes come from (the subscriptions file); `current()` may reload when the file changed. */
export interface RouteSource {
  current(): ReadonlyMap<string, Route>;
  /** Receives the gateway's per-route check (deliverer, skills, runner, secrets) before the first read. */
  setCheck?(check: (route: Route) => string[]): void;
}

export function isValidRouteName(name: string): boolean {
  return ROUTE_NAME_PATTERN.test(name);
}

export function invalidRouteNameMessage(name: string): string {
  return `invalid route name '${name}': use lower-case letters, digits, '-' and '_', starting with a letter or digit`;
}

/** Builds a Route from a route entry (config or subscription), with the global secret as fallback. */
export function toRoute(name: string, entry: RouteConfig, source: Route['source'], globalSecret?: string): Route {
  const deliverExtra: Record<string, string> = {};
  for (const [key, value] of Object.entries(entry.deliver_extra ?? {})) deliverExtra[key] = String(value);
  return {
    name,
    source,
    description: entry.description,
    events: entry.events ?? [],
    secret: entry.secret || globalSecret || undefined,
    prompt: entry.prompt,
    skills: entry.skills ?? [],
    deliver: entry.deliver ?? 'log',
    deliverExtra,
    agent: entry.agent,
  };
}

export function staticRoutes(config: HookwiseConfig): Map<string, Route> {
  const extra = config.platforms.webhook.extra;
  const routes = new Map<string, Route>();
  for (const [name, entry] of Object.entries(extra.routes ?? {})) {
    if (entry.enabled === false) continue;
    routes.set(name, toRoute(name, entry, 'static', extra.secret));
  }
  return routes;
}

export class RouteTable {
  constructor(
    private readonly statics: ReadonlyMap<string, Route>,
    private readonly dynamic?: RouteSource,
  ) {}

  get(name: string): Route | undefined {
    return this.statics.get(name) ?? this.dynamic?.current().get(name);
  }

  /** Every route, static first; a subscription hidden by a static route of the same name is left out. */
  all(): Route[] {
    const out = [...this.statics.values()];
    for (const [name, route] of this.dynamic?.current() ?? []) if (!this.statics.has(name)) out.push(route);
    return out;
  }

  isStatic(name: string): boolean {
    return this.statics.has(name);
  }

  /** The static routes only; reading them never touches the dynamic source. */
  staticRoutes(): Route[] {
    return [...this.statics.values()];
  }
}
