// The checks of one route before it is served (startup, subscriptions, `hookwise doctor`): its name and secret,
// every destination, its source and options, skills, agent runner, filters, keys, transform and sandbox.
import { join } from 'node:path';
import { closestMatch } from '@hookwise/core';
import { INSECURE_NO_AUTH, type HookwiseConfig } from './config/schema';
import { filterProblems } from './filters/filters';
import { routeKeyProblems } from './ingest/route-keys';
import { transformProblems } from './transforms/transforms';
import { scheduleProblems } from './schedules/schedule-ticks';
import { isLoopbackHost } from './config/loopback-host';
import { sandboxProblems } from './jobs/agent-sandbox';
import { DELIVER_NONE, invalidRouteNameMessage, isValidRouteName, type Route } from './routes/routes';
import { secretsProblems } from './routes/secret-policy';
import { approvalProblems } from './approvals/approval-problems';
import { MCP_EVENTS_SOURCE } from './mcp-events/upstream-subscriptions';
import type { PluginRegistry } from './plugins/registry';
import type { PluginInstances } from './plugins/plugin-instances';
import type { SkillLibrary } from './plugins/skills';
import type { ActionCatalogue } from './actions/action-catalogue';

/** What the checks read of the gateway. */
export interface RouteCheckContext {
  config: HookwiseConfig;
  configDir: string;
  registry: PluginRegistry;
  instances: PluginInstances;
  skills?: SkillLibrary;
  /** The actions a route's `actions:` may name; absent: the block is not checked (callers without a gateway). */
  actions?: ActionCatalogue;
}

/** Problems with one route: name, secret, deliverer, skills, agent runner. Used at startup and by the CLI. */
export function routeProblems(ctx: RouteCheckContext, route: Route, host = ctx.config.platforms.webhook.extra.host): string[] {
  const problems: string[] = [];
  const where = `route '${route.name}'`;
  if (!isValidRouteName(route.name)) problems.push(`${where}: ${invalidRouteNameMessage(route.name)}`);
  if (!route.secret) {
    // A `source: mcp-events` route's secret is its upstream subscription's, given to it once subscribed.
    if (route.source !== MCP_EVENTS_SOURCE)
      problems.push(
        `${where} has no secret: set \`secret\` on the route or \`platforms.webhook.extra.secret\` (or WEBHOOK_SECRET), or INSECURE_NO_AUTH for local testing`,
      );
  } else if (route.secretOrigin !== 'global' && secretsProblems(where, route.secrets).length) {
    // The global secrets are checked once, by start(), under their own key.
    problems.push(...secretsProblems(where, route.secrets));
  } else if (route.secret === INSECURE_NO_AUTH && !isLoopbackHost(host)) {
    problems.push(
      `${where} uses INSECURE_NO_AUTH while the gateway binds ${host}: anyone who can reach it could trigger the agent; bind 127.0.0.1 (platforms.webhook.extra.host) or give the route a real secret`,
    );
  }
  // Every destination of a fan-out is checked: a typo in the second must not wait for the first delivery.
  for (const destination of route.destinations ?? [{ to: route.deliver, extra: route.deliverExtra }]) {
    const id = destination.to;
    const deliverer = ctx.registry.get('deliverer', id);
    if (!deliverer) {
      // `none` is no deliverer (the route delivers nothing) but is a value deliver takes: list it and suggest it.
      const names = [DELIVER_NONE, ...ctx.registry.list('deliverer').flatMap((e) => [e.contribution.id, ...(e.contribution.aliases ?? [])])];
      const match = closestMatch(id, names);
      problems.push(
        `${where}: unknown deliver type '${id}'${match ? ` (did you mean '${match}'?)` : ''}; known: ${DELIVER_NONE}, ${ctx.registry.describeIds('deliverer')}`,
      );
    } else if ((deliverer.contribution as { requiresEnabled?: boolean }).requiresEnabled && ctx.instances.platform(id)?.enabled !== true) {
      const key = ctx.instances.platformKey(id);
      problems.push(`${where} delivers to '${id}', which is not enabled: set platforms.${key}.enabled: true and its credentials (see the plugin's README)`);
    }
  }
  const via = route.approval?.via;
  if (via !== undefined && !ctx.registry.get('deliverer', via)) {
    const match = closestMatch(
      via,
      ctx.registry.list('deliverer').map((e) => e.contribution.id),
    );
    problems.push(
      `${where}: approval.via '${via}' is no deliverer${match ? ` (did you mean '${match}'?)` : ''}; known: ${ctx.registry.describeIds('deliverer')}`,
    );
  }
  problems.push(...approvalProblems(route));
  problems.push(...sourceProblems(ctx, route));
  for (const skill of route.skills) {
    // The real path, not a placeholder: the reader copies it into `mkdir -p` / their editor.
    if (!ctx.skills?.get(skill))
      problems.push(
        `${where}: unknown skill '${skill}'; add ${join(ctx.configDir, 'skills', skill, 'SKILL.md')} or remove it from skills: (hookwise skills list shows the skills found)`,
      );
  }
  const runner = route.agent?.runner ?? ctx.config.agent.runner;
  if (!ctx.registry.get('agent', runner)) problems.push(`${where}: unknown agent runner '${runner}'; known: ${ctx.registry.ids('agent').sort().join(', ')}`);
  // Filters compile here (a bad regex or JSONata expression refuses the config), once per route object.
  problems.push(...filterProblems(route, ctx.configDir), ...routeKeyProblems(route), ...transformProblems(route));
  problems.push(...sandboxProblems(route.agent?.sandbox, `${where} agent.sandbox`), ...scheduleProblems(route));
  if (ctx.actions) problems.push(...ctx.actions.problems(where, route.actions));
  return problems;
}

/** An unknown `source:` or options its source refuses. */
function sourceProblems(ctx: RouteCheckContext, route: Route): string[] {
  if (route.source === undefined) return [];
  const where = `route '${route.name}'`;
  if (!ctx.registry.get('source', route.source))
    return [`${where}: unknown source '${route.source}'; known: ${ctx.registry.describeIds('source')} (docs/sources.md; install the plugin of another sender)`];
  return ctx.registry.validateOptions('source', route.source, route.sourceOptions ?? {}, `${where} source_options`).problems;
}
