// `webhook subscribe` flags for what decides whether and when the agent runs (docs/filters.md): --filter and
// --filter-expression, --coalesce-*, --concurrency-key, the budget flags and --silent-marker. They are parsed
// before anything is opened, and written to the subscription in the config form (`filter:` as a list, ...).
import type { BudgetConfig, CoalesceConfig, FilterCondition, FilterTest, SubscriptionEntry } from '@hookwise/gateway';
import { RouteFlagError } from './route-flag-error';
import { transformOf, type TransformFlags } from './subscribe-transform-flags';

export interface RouteFlags extends TransformFlags {
  filter?: string[];
  'filter-expression'?: string[];
  'coalesce-key'?: string;
  'coalesce-window'?: string;
  'coalesce-mode'?: string;
  'concurrency-key'?: string;
  'runs-per-hour'?: string;
  'tokens-per-day'?: string;
  'when-over-budget'?: string;
  'silent-marker'?: string;
  /** --deliver-only / --no-deliver-only: no agent; the rendered prompt is delivered within the request. */
  'deliver-only'?: boolean;
}

const FILTER_FORMS =
  'path=value, path!=value, path=a|b (one of), path!=a|b (none of), path~=regex, path*=text (contains), path@=file (in_file), path? (present), !path? (missing), not:<form>';
const FILTER_EXAMPLE = "--filter 'action=opened|synchronize' --filter pull_request.draft=false";
/** A dot path as --filter takes it (payload, headers.<name> or event): no blanks and none of the grammar's own characters. */
const PATH = /^[^\s=!~?|*@]+$/;

/** `true`, `false`, `null` and numbers are taken as such, a JSON string ("42") as its text, anything else as written. */
export function filterValue(text: string): string | number | boolean | null {
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return value as string | number | boolean | null;
  } catch {
    /* not JSON: the text itself */
  }
  return text;
}

function checkedPath(path: string, flag: string): string {
  if (!PATH.test(path) || path.split('.').includes(''))
    throw new RouteFlagError(
      `--filter '${flag}': '${path}' is not a dot path into the payload, headers.<name> or event (e.g. pull_request.base.ref); forms: ${FILTER_FORMS}`,
    );
  return path;
}

/** One --filter value as a filter test (grammar in docs/filters.md). */
export function parseFilterFlag(text: string): FilterTest {
  const flag = text.trim();
  // not:<form> passes when the form's test fails (written as {not: {test}}).
  if (flag.startsWith('not:')) return { not: parseFilterFlag(flag.slice(4)) };
  const presence = /^(!?)([^=]*)\?$/.exec(flag);
  if (presence) return { path: checkedPath(presence[2], flag), exists: presence[1] !== '!' };
  const at = flag.indexOf('=');
  if (at <= 0) throw new RouteFlagError(`--filter expects one of ${FILTER_FORMS}; got '${text}' (e.g. ${FILTER_EXAMPLE})`);
  const before = flag[at - 1];
  const op = before === '!' ? '!=' : before === '~' ? '~=' : before === '*' ? '*=' : before === '@' ? '@=' : '=';
  const path = checkedPath(flag.slice(0, op === '=' ? at : at - 1), flag);
  const value = flag.slice(at + 1);
  if (op === '*=') return { path, contains: filterValue(value) };
  if (op === '@=') {
    if (value.trim() === '')
      throw new RouteFlagError(
        `--filter '${flag}': name a file of values, one per line (relative to the config dir), e.g. --filter 'sender.login@=maintainers.txt'`,
      );
    return { path, in_file: value };
  }
  if (op === '~=') {
    try {
      new RegExp(value);
    } catch (err) {
      throw new RouteFlagError(`--filter '${flag}': ${(err as Error).message}; e.g. --filter 'ref~=^refs/heads/(main|release/.*)$'`);
    }
    return { path, matches: value };
  }
  if (value.includes('|')) {
    const values = value.split('|').map(filterValue);
    return op === '=' ? { path, in: values } : { path, not_in: values };
  }
  return op === '=' ? { path, equals: filterValue(value) } : { path, not_equals: filterValue(value) };
}

/** A filter test as --filter writes it (for the summary the command prints). */
export function describeFilterTest(test: FilterTest): string {
  const show = (value: unknown) => (typeof value === 'string' && filterValue(value) === value ? value : JSON.stringify(value));
  if (test.expression !== undefined) return `expression ${JSON.stringify(test.expression)}`;
  if (test.not !== undefined)
    return `not:${describeFilterTest(test.path !== undefined && test.not.path === undefined ? { ...test.not, path: test.path } : test.not)}`;
  if (test.contains !== undefined) return `${test.path}*=${show(test.contains)}`;
  if (test.in_file !== undefined) return `${test.path}@=${test.in_file}`;
  if (test.missing !== undefined) return `${test.missing ? '!' : ''}${test.path}?`;
  if (test.exists !== undefined) return `${test.exists ? '' : '!'}${test.path}?`;
  if (test.matches !== undefined) return `${test.path}~=${test.matches}`;
  if (test.in !== undefined) return `${test.path}=${test.in.map(show).join('|')}`;
  if (test.not_in !== undefined) return `${test.path}!=${test.not_in.map(show).join('|')}`;
  if (Object.hasOwn(test, 'not_equals')) return `${test.path}!=${show(test.not_equals)}`;
  return `${test.path}=${show(test.equals)}`;
}

export function describeFilterCondition(condition: FilterCondition): string {
  return 'any' in condition ? `any of (${condition.any.map(describeFilterTest).join(', ')})` : describeFilterTest(condition as FilterTest);
}

/** A count flag: a whole number, 1 or more; 0 removes the limit (undefined then). */
function limit(flag: string, text: string, example: string): number | undefined {
  if (!/^\d+$/.test(text.trim())) throw new RouteFlagError(`${flag} takes a whole number (0 removes the limit); got '${text}' (e.g. ${flag} ${example})`);
  const value = Number(text);
  return value === 0 ? undefined : value;
}

function oneOf<T extends string>(flag: string, text: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(text))
    throw new RouteFlagError(`${flag} takes ${choices.join(' or ')}; got '${text}' (e.g. ${flag} ${choices[0]})`);
  return text as T;
}

const COALESCE_EXAMPLE = "--coalesce-key '{repository.full_name}#{pull_request.number}' --coalesce-window 120";

function coalesceOf(flags: RouteFlags, existing: CoalesceConfig | undefined): CoalesceConfig | undefined {
  const key = flags['coalesce-key'];
  const windowText = flags['coalesce-window'];
  const modeText = flags['coalesce-mode'];
  if (key === undefined && windowText === undefined && modeText === undefined) return existing;
  if (key !== undefined && key.trim() === '') {
    if (windowText !== undefined || modeText !== undefined)
      throw new RouteFlagError("--coalesce-key '' removes coalescing: leave out --coalesce-window and --coalesce-mode");
    return undefined;
  }
  let window = existing?.window_seconds;
  if (windowText !== undefined) {
    window = Number(windowText);
    if (windowText.trim() === '' || !Number.isFinite(window) || window <= 0)
      throw new RouteFlagError(`--coalesce-window takes seconds, more than 0; got '${windowText}' (e.g. ${COALESCE_EXAMPLE})`);
  }
  const coalesceKey = key ?? existing?.key;
  if (coalesceKey === undefined || window === undefined) {
    const missing = coalesceKey === undefined ? '--coalesce-key' : '--coalesce-window';
    throw new RouteFlagError(`coalescing needs a key and a window: add ${missing} (e.g. ${COALESCE_EXAMPLE})`);
  }
  const coalesce: CoalesceConfig = { key: coalesceKey, window_seconds: window };
  const mode = modeText !== undefined ? oneOf('--coalesce-mode', modeText, ['latest', 'all'] as const) : existing?.mode;
  if (mode !== undefined) coalesce.mode = mode;
  return coalesce;
}

function budgetOf(flags: RouteFlags, existing: BudgetConfig | undefined): BudgetConfig | undefined {
  const runs = flags['runs-per-hour'];
  const tokens = flags['tokens-per-day'];
  const when = flags['when-over-budget'];
  if (runs === undefined && tokens === undefined && when === undefined) return existing;
  const budget: BudgetConfig = { ...existing };
  if (runs !== undefined) budget.runs_per_hour = limit('--runs-per-hour', runs, '20');
  if (tokens !== undefined) budget.tokens_per_day = limit('--tokens-per-day', tokens, '2000000');
  if (when !== undefined) budget.when_exceeded = oneOf('--when-over-budget', when, ['wait', 'skip'] as const);
  if (budget.runs_per_hour === undefined) delete budget.runs_per_hour;
  if (budget.tokens_per_day === undefined) delete budget.tokens_per_day;
  if (budget.runs_per_hour === undefined && budget.tokens_per_day === undefined) {
    if (when !== undefined)
      throw new RouteFlagError('--when-over-budget needs a limit: add --runs-per-hour or --tokens-per-day (e.g. --runs-per-hour 20 --when-over-budget skip)');
    return undefined;
  }
  return budget;
}

/** The filter of the flags: every --filter and --filter-expression must hold; `--filter ''` alone removes the filter. */
function filterOf(flags: RouteFlags, existing: SubscriptionEntry['filter']): SubscriptionEntry['filter'] {
  const tests = flags.filter ?? [];
  const expressions = flags['filter-expression'] ?? [];
  if (!tests.length && !expressions.length) return existing;
  if (tests.length === 1 && tests[0].trim() === '' && !expressions.length) return undefined;
  const conditions: FilterCondition[] = tests.map(parseFilterFlag);
  for (const expression of expressions) {
    if (expression.trim() === '')
      throw new RouteFlagError(
        `--filter-expression is empty; write a JSONata expression, e.g. --filter-expression "'needs-review' in pull_request.labels.name"`,
      );
    conditions.push({ expression });
  }
  return conditions;
}

/** A template flag: '' removes it. */
const template = (value: string | undefined, existing: string | undefined): string | undefined =>
  value === undefined ? existing : value.trim() === '' ? undefined : value;

/**
 * Sets the entry's filter, coalesce, concurrency_key, budget and silent_marker from the flags: a flag that is
 * given replaces the value (an empty one removes it), one that is not keeps the existing entry's. Throws a
 * RouteFlagError for a value that is not right.
 */
export function applyRouteFlags(entry: SubscriptionEntry, flags: RouteFlags, existing: SubscriptionEntry | undefined): SubscriptionEntry {
  const values: Pick<SubscriptionEntry, 'filter' | 'coalesce' | 'concurrency_key' | 'budget' | 'silent_marker' | 'deliver_only' | 'transform'> = {
    filter: filterOf(flags, existing?.filter),
    coalesce: coalesceOf(flags, existing?.coalesce),
    concurrency_key: template(flags['concurrency-key'], existing?.concurrency_key),
    budget: budgetOf(flags, existing?.budget),
    silent_marker: template(flags['silent-marker'], existing?.silent_marker),
    // --no-deliver-only removes it (the key is written only when true).
    deliver_only: flags['deliver-only'] === undefined ? existing?.deliver_only : flags['deliver-only'] || undefined,
    transform: transformOf(flags, existing?.transform),
  };
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) delete (entry as unknown as Record<string, unknown>)[key];
    else (entry as unknown as Record<string, unknown>)[key] = value;
  }
  return entry;
}
