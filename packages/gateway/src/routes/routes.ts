// The route table: static routes from config.yaml, then dynamic subscriptions (static wins on a name clash).
import type { JobRoute, RouteBudget, RouteDestination } from '@hookwise/core';
import { ROUTE_NAME_PATTERN, type BudgetConfig, type DeliverConfig, type FilterConfig, type HookwiseConfig, type RouteConfig } from '../config/schema';
import type { TransformConfig } from '../config/transform-schema';
import type { ActionsConfig } from '../config/actions-schema';
import type { ConversationConfig } from '../config/conversation-schema';
import type { ApprovalConfig } from '../config/approval-schema';
import type { ScheduleConfig } from '../config/schedule-schema';

/** A route as the gateway serves it: what a job keeps of it (JobRoute), plus what only the request path needs. */
export interface Route extends JobRoute {
  /** Always set on a Route (a job stored by an older version gets its one destination from `deliver`). */
  destinations: RouteDestination[];
  name: string;
  description?: string;
  events: string[];
  /** `mcp_private_fields:`: payload paths withheld from MCP Events subscribers (mcp-events/event-data.ts). */
  mcpPrivateFields?: string[];
  /** The first of `secrets`; undefined only for an invalid (refused) route. */
  secret?: string;
  /** The route's own secrets (rotation: [new, old]), else the global ones. */
  secrets: string[];
  /** Where the secrets come from, for messages that must never show them. */
  secretOrigin?: 'route' | 'subscription' | 'global';
  /** The pinned source id (the route's, else the global default); undefined accepts any of the SPEC's styles. */
  source?: string;
  sourceOptions?: Record<string, unknown>;
  /** `filter:` as configured (compiled and checked by filters.ts). */
  filter?: FilterConfig;
  /** `coalesce:`: the key template, the window in ms and the mode. */
  coalesce?: { key: string; windowMs: number; mode: 'latest' | 'all' };
  /** `concurrency_key:` (a template), else the coalesce key's template. */
  concurrencyKey?: string;
  /** `transform:` as configured (checked and run by transforms/). */
  transform?: TransformConfig;
  /** `actions:`: what the agent may ask the gateway to do for it (actions/action-policy.ts). */
  actions?: ActionsConfig;
  /** `conversation:`: replies to this route's answers continue it (conversations/). */
  conversation?: ConversationConfig;
  /** `approval:`: the answer waits for an allowed approver (approvals/). */
  approval?: ApprovalConfig;
  /** `allow_from:` as strings: who may start a run on a chat source's route ('*': anyone; senders/sender-check.ts). */
  allowFrom?: string[];
  /** `schedule:`: the route also runs on a cron schedule (schedules/scheduler.ts). */
  schedule?: ScheduleConfig;
}

/** The deliver value of routes whose agent acts through its tools only: no destination, nothing delivered. */
export const DELIVER_NONE = 'none';

/** A `budget:` block as the worker uses it; undefined when it sets no limit. */
export function budgetOf(config: BudgetConfig | undefined): RouteBudget | undefined {
  if (!config) return undefined;
  const limits = {
    runsPerHour: config.runs_per_hour,
    tokensPerDay: config.tokens_per_day,
    usdPerDay: config.usd_per_day,
    tokensPerRun: config.tokens_per_run,
    usdPerRun: config.usd_per_run,
  };
  if (Object.values(limits).every((limit) => limit === undefined)) return undefined;
  const set = Object.fromEntries(Object.entries(limits).filter(([, limit]) => limit !== undefined));
  return { ...set, ...(config.per !== undefined ? { per: config.per } : {}), whenExceeded: config.when_exceeded ?? 'wait' };
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

/** What a route falls back to when its entry leaves them out: `platforms.webhook.extra`'s secrets and source. */
export interface RouteDefaults {
  secrets?: string[];
  source?: string;
  sourceOptions?: Record<string, unknown>;
}

/** A `secret`/`secrets` pair as one list (empty strings dropped). */
export function secretList(entry: { secret?: string; secrets?: string[] }): string[] {
  return (entry.secrets ?? (entry.secret ? [entry.secret] : [])).filter((s) => s !== '');
}

/** The global fallbacks of a config. */
export function routeDefaults(config: HookwiseConfig): RouteDefaults {
  const extra = config.platforms.webhook.extra;
  return { secrets: secretList(extra), source: extra.source, sourceOptions: extra.source_options };
}

function stringValues(extra: Record<string, string | number | boolean> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(extra ?? {})) out[key] = String(value);
  return out;
}

/**
 * The destinations of a `deliver` value with their deliver_extra: the route's shared one with an entry's own
 * `extra` over it. A destination is named by its deliverer id; a second entry with the same id (two Slack
 * channels) is named `<id>#2`, so that each keeps its own state, receipt and idempotency keys.
 */
export function destinationsOf(deliver: DeliverConfig | undefined, shared: Record<string, string>): RouteDestination[] {
  if (deliver === DELIVER_NONE) return [];
  const entries = deliver === undefined ? ['log'] : typeof deliver === 'string' ? [deliver] : deliver;
  const seen = new Map<string, number>();
  return entries.map((entry) => {
    const to = typeof entry === 'string' ? entry : entry.to;
    const own = typeof entry === 'string' ? {} : stringValues(entry.extra);
    const n = (seen.get(to) ?? 0) + 1;
    seen.set(to, n);
    const destination: RouteDestination = { to, extra: { ...shared, ...own } };
    if (n > 1) destination.name = `${to}#${n}`;
    return destination;
  });
}

/** The name a destination's state, receipt and progress are kept under. */
export function destinationName(destination: RouteDestination): string {
  return destination.name ?? destination.to;
}

/** Builds a Route from a route entry (config or subscription), with the global secrets and source as fallback. */
export function toRoute(name: string, entry: RouteConfig, origin: Route['origin'], defaults: RouteDefaults = {}): Route {
  const deliverExtra = stringValues(entry.deliver_extra);
  const destinations = destinationsOf(entry.deliver, deliverExtra);
  const own = secretList(entry);
  const secrets = own.length ? own : (defaults.secrets ?? []);
  const ownSource = entry.source !== undefined;
  return {
    name,
    origin,
    description: entry.description,
    events: entry.events ?? [],
    mcpPrivateFields: entry.mcp_private_fields?.length ? entry.mcp_private_fields : undefined,
    secret: secrets[0],
    secrets,
    secretOrigin: own.length ? (origin === 'static' ? 'route' : 'subscription') : secrets.length ? 'global' : undefined,
    source: ownSource ? entry.source : defaults.source,
    sourceOptions: ownSource ? entry.source_options : (entry.source_options ?? defaults.sourceOptions),
    prompt: entry.prompt,
    skills: entry.skills ?? [],
    deliver: destinations.length ? destinations.map(destinationName).join(',') : DELIVER_NONE,
    deliverExtra,
    destinations,
    agent: entry.agent,
    filter: entry.filter,
    coalesce: entry.coalesce ? { key: entry.coalesce.key, windowMs: entry.coalesce.window_seconds * 1000, mode: entry.coalesce.mode ?? 'latest' } : undefined,
    concurrencyKey: entry.concurrency_key ?? entry.coalesce?.key,
    budget: budgetOf(entry.budget),
    silentMarker: entry.silent_marker,
    transform: entry.transform,
    actions: entry.actions,
    conversation: entry.conversation,
    approval: entry.approval,
    allowFrom: entry.allow_from?.map(String),
    deliverOnly: entry.deliver_only === true ? true : undefined,
    schedule: entry.schedule,
  };
}

export function staticRoutes(config: HookwiseConfig): Map<string, Route> {
  const extra = config.platforms.webhook.extra;
  const defaults = routeDefaults(config);
  const routes = new Map<string, Route>();
  for (const [name, entry] of Object.entries(extra.routes ?? {})) {
    if (entry.enabled === false) continue;
    routes.set(name, toRoute(name, entry, 'static', defaults));
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
