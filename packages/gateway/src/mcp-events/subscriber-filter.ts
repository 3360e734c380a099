// A subscriber's `filter` argument: the route filter language (docs/filters.md), compiled with compileFilter, less
// what would reach past the stored payload: `in_file` (files on the gateway's disk) and JSONata `expression`
// (evaluated in the worker pool that routes' filters share: a subscriber must not be able to slow ingest).
import type { FilterConfig, FilterTest } from '../config/schema';
import { compileFilter, type CompiledFilter } from '../filters/filters';
import { invalidParams } from './events-errors';

/** Compiled filters by their JSON text: the same arguments come back on every poll. */
const cache = new Map<string, CompiledFilter>();
const CACHE_SIZE = 200;

function refusedIn(test: unknown, where: string): string | undefined {
  if (test === null || typeof test !== 'object') return undefined;
  const t = test as FilterTest & { any?: unknown };
  if (Array.isArray(t.any)) {
    for (const [i, inner] of t.any.entries()) {
      const found = refusedIn(inner, `${where}.any[${i}]`);
      if (found) return found;
    }
  }
  if (t.expression !== undefined) return `${where}: expression is not offered to subscribers (use the declarative tests: equals, in, matches, ...)`;
  if (t.in_file !== undefined) return `${where}: in_file is not offered to subscribers`;
  return t.not === undefined ? undefined : refusedIn(t.not, `${where}.not`);
}

/** The subscriber's filter, compiled; undefined when it gave none. Throws InvalidParams for a filter that does not compile. */
export function subscriberFilter(filter: unknown): CompiledFilter | undefined {
  if (filter === undefined || filter === null) return undefined;
  if (typeof filter !== 'object') throw invalidParams('arguments.filter: a filter is a test, {any: [...]}, or a list of them (docs/filters.md)');
  const text = JSON.stringify(filter);
  if (text.length > 16_384) throw invalidParams('arguments.filter: at most 16 KiB');
  const known = cache.get(text);
  if (known) return known;
  const list = Array.isArray(filter) ? filter : [filter];
  if (list.length === 0) throw invalidParams('arguments.filter: an empty list tests nothing; leave filter out instead');
  for (const [i, condition] of list.entries()) {
    const refused = refusedIn(condition, Array.isArray(filter) ? `arguments.filter[${i}]` : 'arguments.filter');
    if (refused) throw invalidParams(refused);
  }
  const made = compileFilter(filter as FilterConfig, 'arguments.filter');
  if (!made.filter) throw invalidParams(made.problems.join('; '));
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(text, made.filter);
  return made.filter;
}
