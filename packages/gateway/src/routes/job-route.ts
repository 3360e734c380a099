// The route definition a job carries (JobRoute): taken from a Route when the event is accepted, and turned back
// into a Route by the worker when the route has been removed since.
import type { Logger } from 'winston';
import type { Job, JobRoute } from '@hookwise/core';
import { HookwiseError } from '@hookwise/core';
import type { Route, RouteTable } from './routes';

/** What a job needs of its route to run, without its secrets, names of sources or event filter. */
export function jobRouteOf(route: Route): JobRoute {
  const definition: JobRoute = { origin: route.origin, skills: route.skills, deliver: route.deliver, deliverExtra: route.deliverExtra };
  // A single destination is what `deliver` and `deliverExtra` already say; only a fan-out needs the list.
  // (`deliver: none` has no destination: the empty list says so.)
  if (route.destinations.length !== 1 || route.destinations[0].name !== undefined) definition.destinations = route.destinations;
  if (route.prompt !== undefined) definition.prompt = route.prompt;
  if (route.agent !== undefined) definition.agent = route.agent;
  if (route.budget !== undefined) definition.budget = route.budget;
  if (route.silentMarker !== undefined) definition.silentMarker = route.silentMarker;
  if (route.deliverOnly) definition.deliverOnly = true;
  return definition;
}

/** A Route to run a job with when `name` is gone: what the job was accepted under (it is verified already). */
export function routeFromJob(name: string, definition: JobRoute): Route {
  return {
    name,
    origin: definition.origin,
    events: [],
    secrets: [],
    prompt: definition.prompt,
    skills: definition.skills ?? [],
    deliver: definition.deliver,
    deliverExtra: definition.deliverExtra ?? {},
    destinations: definition.destinations ?? [{ to: definition.deliver, extra: definition.deliverExtra ?? {} }],
    agent: definition.agent,
    budget: definition.budget,
    silentMarker: definition.silentMarker,
    deliverOnly: definition.deliverOnly,
  };
}

/**
 * The route a job runs with: the route's current definition while it exists (a fix to a route applies to its
 * waiting and retried jobs), else the definition the job was accepted under (docs/security.md).
 */
export function currentRouteOf(routes: RouteTable, job: Job, logger: Logger): Route {
  const current = routes.get(job.route);
  if (current) return current;
  if (job.routeDefinition) {
    logger.info(`route '${job.route}' no longer exists; delivery ${job.deliveryId} runs with the route definition it was accepted under`, {
      route: job.route,
      delivery_id: job.deliveryId,
    });
    return routeFromJob(job.route, job.routeDefinition);
  }
  throw new HookwiseError(
    'HW_E_UNKNOWN_ROUTE',
    `route '${job.route}' no longer exists and the job was stored without its route definition (by an older version): add the route again and retry the dead letter`,
    { retryable: false },
  );
}
