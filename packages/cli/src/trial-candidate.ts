// The two routes a trial compares: the route as the gateway serves it now (config.yaml or the subscriptions file)
// and the candidate, the same definition with the change applied at the config level (prompt, agent block,
// filter, skills, or a whole route file merged over it), turned into a Route by the gateway's own toRoute.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { HookwiseError, errorMessage } from '@hookwise/core';
import {
  compileFilter,
  readSubscriptions,
  routeDefaults,
  toRoute,
  type FilterCondition,
  type HookwiseConfig,
  type Route,
  type RouteConfig,
} from '@hookwise/gateway';
import { parseCsv } from './csv-list';
import { parseFilterFlag } from './subscribe-route-flags';

export interface CandidateFlags {
  prompt?: string;
  'prompt-file'?: string;
  'agent-file'?: string;
  filter?: string[];
  'filter-expression'?: string[];
  skills?: string;
  with?: string;
}

export interface TrialRoutes {
  current: Route;
  candidate: Route;
  /** What was changed, for the stored trial and the header line (file names, not their contents). */
  change: Record<string, unknown>;
}

/** A YAML file that must hold a mapping; `what` names the flag in the error. */
function yamlObject(file: string, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new HookwiseError('HW_E_CONFIG', `${what} ${file}: ${errorMessage(err)}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new HookwiseError('HW_E_CONFIG', `${what} ${file} must hold a YAML mapping (keys such as prompt:, agent:, filter:), not ${JSON.stringify(parsed)}`);
  }
  return parsed as Record<string, unknown>;
}

/** The route's config entry and where it comes from: a static route wins over a subscription, as in the gateway. */
function routeEntry(config: HookwiseConfig, configDir: string, name: string): { entry: RouteConfig; origin: Route['origin'] } {
  const statics = config.platforms.webhook.extra.routes ?? {};
  if (statics[name] && statics[name].enabled !== false) return { entry: statics[name], origin: 'static' };
  const subscriptions = readSubscriptions(configDir);
  const raw = subscriptions[name] as unknown;
  if (raw && typeof raw === 'object') return { entry: raw as RouteConfig, origin: 'subscription' };
  const known = [...Object.keys(statics).filter((n) => statics[n].enabled !== false), ...Object.keys(subscriptions)].sort();
  throw new HookwiseError(
    'HW_E_CONFIG',
    `no route '${name}' in config.yaml or the subscriptions: ${known.length ? `routes are ${known.join(', ')}` : 'there are no routes'} (\`hookwise routes list\`)`,
  );
}

/** The agent block of the candidate: a file naming another runner replaces the block, else it is merged over it. */
function candidateAgent(config: HookwiseConfig, entry: RouteConfig, file: string): Record<string, unknown> {
  const given = yamlObject(file, '--agent-file');
  // A file holding `agent:` (copied from a config) is read as its block.
  const block = given.agent && typeof given.agent === 'object' && !Array.isArray(given.agent) ? (given.agent as Record<string, unknown>) : given;
  const base = (entry.agent ?? config.agent) as Record<string, unknown>;
  const runner = block.runner ?? base.runner ?? config.agent.runner;
  return block.runner !== undefined && block.runner !== (base.runner ?? config.agent.runner) ? { ...block, runner } : { ...base, ...block, runner };
}

/** --filter and --filter-expression as a filter: every one must hold (the grammar of `webhook subscribe --filter`). */
function candidateFilter(flags: CandidateFlags): FilterCondition[] | undefined {
  const conditions: FilterCondition[] = (flags.filter ?? []).filter((text) => text.trim() !== '').map(parseFilterFlag);
  for (const expression of flags['filter-expression'] ?? []) {
    if (expression.trim() === '')
      throw new HookwiseError('HW_E_CONFIG', `--filter-expression is empty; write a JSONata expression, e.g. "'bug' in issue.labels.name"`);
    conditions.push({ expression });
  }
  return conditions.length ? conditions : undefined;
}

/** Builds the current route and the candidate; refuses a trial that changes nothing, and a filter that does not compile. */
export function trialRoutes(config: HookwiseConfig, configDir: string, name: string, flags: CandidateFlags): TrialRoutes {
  const { entry, origin } = routeEntry(config, configDir, name);
  const defaults = routeDefaults(config);
  const change: Record<string, unknown> = {};
  let next: RouteConfig = { ...entry };
  if (flags.with) {
    const merged = yamlObject(resolve(flags.with), '--with');
    next = { ...next, ...(merged as RouteConfig) };
    change.with = flags.with;
  }
  if (flags.prompt !== undefined && flags['prompt-file'] !== undefined) throw new HookwiseError('HW_E_CONFIG', 'give --prompt or --prompt-file, not both');
  if (flags.prompt !== undefined) {
    next.prompt = flags.prompt;
    change.prompt = flags.prompt;
  }
  if (flags['prompt-file'] !== undefined) {
    try {
      next.prompt = readFileSync(resolve(flags['prompt-file']), 'utf8').replace(/\n$/, '');
    } catch (err) {
      throw new HookwiseError('HW_E_CONFIG', `--prompt-file ${flags['prompt-file']}: ${errorMessage(err)}`);
    }
    change.prompt = next.prompt;
    change.promptFile = flags['prompt-file'];
  }
  if (flags['agent-file'] !== undefined) {
    next.agent = candidateAgent(config, next, resolve(flags['agent-file'])) as RouteConfig['agent'];
    change.agentFile = flags['agent-file'];
    change.runner = (next.agent as Record<string, unknown>).runner;
  }
  const filter = candidateFilter(flags);
  if (filter) {
    next.filter = filter;
    change.filter = [...(flags.filter ?? []), ...(flags['filter-expression'] ?? [])];
  }
  if (flags.skills !== undefined) {
    next.skills = parseCsv(flags.skills);
    change.skills = next.skills;
  }
  if (Object.keys(change).length === 0) {
    throw new HookwiseError(
      'HW_E_CONFIG',
      'nothing to try: give a change (--prompt, --prompt-file, --agent-file, --filter, --filter-expression, --skills or --with)',
    );
  }
  const current = toRoute(name, { ...entry, events: entry.events ?? [] }, origin, defaults);
  const candidate = toRoute(name, { ...next, events: next.events ?? [] }, origin, defaults);
  if (candidate.filter !== undefined) {
    const { problems } = compileFilter(candidate.filter, `the candidate filter of route '${name}'`, configDir);
    if (problems.length) throw new HookwiseError('HW_E_CONFIG', problems.join('; '));
  }
  return { current, candidate, change };
}
