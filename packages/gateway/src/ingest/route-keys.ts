// The keys a route renders per event: `coalesce.key` (events with the same key become one agent run) and
// `concurrency_key` (runs with the same key never overlap). docs/filters.md.
import { createHash } from 'node:crypto';
import { renderTemplate, type JobInput } from '@hookwise/core';
import type { Route } from '../routes/routes';

/** Longest key kept as rendered; a longer one (a long payload value in it) keeps its start and gets a hash of the whole. */
export const MAX_KEY_LENGTH = 200;

/** Placeholders that make no sense in a key: the whole payload, and the coalesced job's own variables. */
const NOT_IN_KEYS = ['{__raw__}', '{__events__}', '{__event_count__}'];

/** A rendered key short enough for every store and still distinct. */
export function boundedKey(rendered: string): string {
  if (rendered.length <= MAX_KEY_LENGTH) return rendered;
  return `${rendered.slice(0, MAX_KEY_LENGTH - 41)}#${createHash('sha256').update(rendered).digest('hex').slice(0, 40)}`;
}

/** The job of an accepted event, with the route's coalesce and concurrency keys rendered from its payload. */
export function withRouteKeys(route: Route, job: JobInput): JobInput {
  if (route.coalesce) {
    const { key, windowMs, mode } = route.coalesce;
    job.coalesce = { key: boundedKey(renderTemplate(key, job.payload)), windowMs, mode };
  }
  if (route.concurrencyKey !== undefined) job.concurrencyKey = boundedKey(renderTemplate(route.concurrencyKey, job.payload));
  return job;
}

/** Problems of a route's key templates, for routeProblems. */
export function routeKeyProblems(route: Route): string[] {
  const problems: string[] = [];
  const templates: Array<[string, string | undefined]> = [
    ['coalesce.key', route.coalesce?.key],
    ['concurrency_key', route.concurrencyKey === route.coalesce?.key ? undefined : route.concurrencyKey],
  ];
  for (const [key, template] of templates) {
    const bad = template === undefined ? undefined : NOT_IN_KEYS.find((placeholder) => template.includes(placeholder));
    if (bad)
      problems.push(
        `route '${route.name}' ${key}: ${bad} cannot be part of a key; name the payload values that tell events apart, e.g. "{repository.full_name}#{pull_request.number}"`,
      );
  }
  return problems;
}
