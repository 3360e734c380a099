// What the per-job channel (job-channel.ts) lets an agent run do with subscriptions, and nothing more: the keys
// it may set, the secret it never chooses nor sees, and the routes it may see and change (only those its job made).
// One policy for the REST endpoints and the MCP tools: a PUT is the route's `subscribe` action (refused when the
// route's `actions:` do not list it, counted against its `max`, recorded with the run's actions), a DELETE needs the
// same action, and a GET lists only what this job made. Each entry made here carries `created_by` (route and job),
// which `hookwise webhook list`, the dashboard and `webhook subscribe` show the operator.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'winston';
import type { HookwiseConfig } from '../config/schema';
import { readRunFile } from '../config/run-file';
import { invalidRouteNameMessage, isValidRouteName, routeDefaults, toRoute, type Route, type RouteTable } from '../routes/routes';
import { readSubscriptions, subscriptionProblems, type SubscriptionEntry } from '../routes/subscriptions';
import { updateSubscriptions } from '../routes/subscription-store';
import { notOfferedReason, type ChannelTools } from './channel-tools';

/** What the channel needs of the gateway. */
export interface ChannelGateway {
  readonly config: HookwiseConfig;
  readonly options: { configDir: string };
  readonly routes: Pick<RouteTable, 'isStatic'>;
  readonly logger: Logger;
  readonly redactor: { add(secret: string): unknown };
  routeProblems(route: Route): string[];
}

/** One run's channel: the job, its route, and the tools its route's actions offer (none: the route lists no actions). */
export interface ChannelSession {
  jobId: string;
  route: string;
  actions?: ChannelTools;
}

/** The action the subscriptions API is: a route may subscribe (PUT) and unsubscribe (DELETE) only when it lists it. */
export const SUBSCRIBE_ACTION = 'subscribe';

/** Whether an entry was made by an agent run of this job (and not adopted by the operator since): only those are its own. */
export function madeBy(entry: SubscriptionEntry | undefined, session: Pick<ChannelSession, 'jobId' | 'route'>): boolean {
  const by = entry?.created_by;
  return by !== undefined && by.adopted_at === undefined && by.job === session.jobId && by.route === session.route;
}

/** The keys a run may set; a secret, source or anything else is refused, never ignored. */
export const CHANNEL_KEYS = ['description', 'events', 'prompt', 'skills', 'deliver', 'deliver_extra', 'filter', 'transform'] as const;

/**
 * Of a transform, a run may set only a JSONata expression (bounded like the filter expressions it may already set).
 * A command is code the gateway would run on every request: an agent must never choose it, so it is refused, as are
 * the limits (time, output) an operator sets.
 */
function transformRefusal(transform: unknown): string | undefined {
  if (transform === undefined) return undefined;
  const keys = typeof transform === 'object' && transform !== null && !Array.isArray(transform) ? Object.keys(transform) : [];
  const other = keys.filter((key) => key !== 'expression');
  if (!other.length && keys.length) return undefined;
  return (
    `an agent run may give a transform only as { expression: <JSONata> }${other.length ? `, not ${other.join(', ')}` : ''}: ` +
    'a command is code the gateway runs, which only the operator chooses (hookwise webhook subscribe --transform-command outside the run)'
  );
}

export interface ChannelAnswer {
  status: number;
  body: unknown;
}

const refuse = (status: number, error: string): ChannelAnswer => ({ status, body: { error } });

export class JobChannelRequests {
  constructor(private readonly gateway: ChannelGateway) {}

  /** A request of the run's agent on the REST endpoints: PUT and DELETE under the route's `subscribe` action. */
  async handle(session: ChannelSession, method: string, path: string, body: unknown): Promise<ChannelAnswer> {
    if (path === '/api/job/subscriptions' && method === 'GET') return this.list(session);
    const match = /^\/api\/job\/subscriptions\/([^/]+)$/.exec(path);
    if (match && (method === 'PUT' || method === 'DELETE')) {
      const offered = session.actions?.names().split(',').filter(Boolean) ?? [];
      if (!session.actions || !offered.includes(SUBSCRIBE_ACTION)) return refuse(403, notOfferedReason(SUBSCRIBE_ACTION, offered));
      const name = decodeURIComponent(match[1]);
      return method === 'PUT' ? this.subscribeAction(session.actions, name, body) : this.remove(session, name);
    }
    if (/^\/api\/job\/test\b/.test(path)) return refuse(403, 'webhook test is not available to an agent run: ask the operator to run it outside');
    return refuse(404, 'the job channel serves GET /api/job/subscriptions, PUT and DELETE /api/job/subscriptions/<name>');
  }

  private baseUrl(): string {
    const extra = this.gateway.config.platforms.webhook.extra;
    return (extra.public_url ?? readRunFile(this.gateway.options.configDir)?.url ?? `http://localhost:${extra.port}`).replace(/\/+$/, '');
  }

  /** What the run sees of one of its own entries: never a secret. */
  private shown(name: string, entry: SubscriptionEntry): Record<string, unknown> {
    const { description, prompt, skills, deliver, deliver_extra, filter, transform, created_at, updated_at } = entry;
    const url = `${this.baseUrl()}/webhooks/${encodeURIComponent(name)}`;
    return { name, url, own: true, description, events: entry.events ?? [], prompt, skills, deliver, deliver_extra, filter, transform, created_at, updated_at };
  }

  /** Only what this job made: the operator's subscriptions (their names and descriptions too) are none of the run's business. */
  private list(session: ChannelSession): ChannelAnswer {
    const entries = readSubscriptions(this.gateway.options.configDir);
    const listed = Object.entries(entries)
      .filter(([, entry]) => madeBy(entry, session))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, entry]) => this.shown(name, entry));
    return { status: 200, body: { subscriptions: listed } };
  }

  /**
   * A PUT as the route's `subscribe` action: the same check, the same `max` (per event, across the job's runs) and
   * the same record as the MCP tool, which performs it through subscribe() below.
   */
  private async subscribeAction(tools: ChannelTools, name: string, body: unknown): Promise<ChannelAnswer> {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return refuse(400, `send the subscription's settings as a JSON object (${CHANNEL_KEYS.join(', ')})`);
    const answer = await tools.call(SUBSCRIBE_ACTION, { ...body, name });
    if (answer.ok) {
      const shown = answer.detail as { created?: boolean } | undefined;
      return { status: shown?.created === true ? 201 : 200, body: answer.detail };
    }
    if (answer.refused) return refuse(403, answer.text.replace(/^refused: /, ''));
    const said = answer.detail as ChannelAnswer | undefined;
    return said && typeof said.status === 'number' ? said : refuse(502, answer.text);
  }

  /** Creates or changes a subscription as the run's own (the `subscribe` action performs it; no policy check here). */
  async subscribe(session: ChannelSession, name: string, body: unknown): Promise<ChannelAnswer> {
    if (!isValidRouteName(name)) return refuse(400, invalidRouteNameMessage(name));
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return refuse(400, `send the subscription's settings as a JSON object (${CHANNEL_KEYS.join(', ')})`);
    const unknown = Object.keys(body).filter((key) => !(CHANNEL_KEYS as readonly string[]).includes(key));
    if (unknown.length) {
      return refuse(
        403,
        `not settable through the job channel: ${unknown.join(', ')}; an agent run may set only ${CHANNEL_KEYS.join(', ')} (the gateway generates the secret)`,
      );
    }
    const transformProblem = transformRefusal((body as { transform?: unknown }).transform);
    if (transformProblem) return refuse(403, transformProblem);
    if (this.gateway.routes.isStatic(name)) return refuse(409, `'${name}' is a static route of config.yaml: choose another name`);
    const { config, options } = this.gateway;
    let secret: string | undefined;
    const answer = await updateSubscriptions(options.configDir, (entries): ChannelAnswer => {
      const existing = Object.hasOwn(entries, name) ? entries[name] : undefined;
      if (existing && !madeBy(existing, session)) {
        return refuse(409, `a subscription named '${name}' exists and was not created by this agent run: choose another name`);
      }
      const now = new Date().toISOString();
      secret = existing ? undefined : randomBytes(32).toString('base64url');
      const given = body as Partial<SubscriptionEntry>;
      const entry: SubscriptionEntry = {
        ...(existing ?? { events: [], skills: [], deliver: 'log', deliver_extra: {}, created_at: now }),
        ...given,
        ...(existing ? {} : { secret, created_by: { route: session.route, job: session.jobId } }),
        updated_at: now,
      } as SubscriptionEntry;
      const problems = subscriptionProblems(name, entry, routeDefaults(config));
      if (!problems.length) problems.push(...this.gateway.routeProblems(toRoute(name, entry, 'subscription', routeDefaults(config))));
      if (problems.length) return refuse(400, `subscription '${name}' was not saved: ${problems.join('; ')}`);
      entries[name] = entry;
      return { status: existing ? 200 : 201, body: { ...this.shown(name, entry), created: !existing } };
    });
    if (secret && answer.status === 201) {
      this.gateway.redactor.add(secret);
      this.gateway.logger.info(`job ${session.jobId} (route '${session.route}') subscribed '${name}' through its job channel`, {
        route: session.route,
        subscription: name,
      });
    }
    return answer;
  }

  private async remove(session: ChannelSession, name: string): Promise<ChannelAnswer> {
    const refused = refuse(403, `'${name}' was not created by this agent run: an agent run may remove only the subscriptions it created`);
    return updateSubscriptions(this.gateway.options.configDir, (entries): ChannelAnswer => {
      if (!madeBy(Object.hasOwn(entries, name) ? entries[name] : undefined, session)) return refused;
      delete entries[name];
      return { status: 200, body: { name, removed: true } };
    });
  }
}
