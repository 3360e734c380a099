// The accept step: one store call that counts the hit, claims the delivery id, and enqueues the job (atomic
// where the store can), and the answer to each of its outcomes.
import type { AcceptOutcome, AcceptRequest, JobRoute, Store } from '@hookwise/core';
import { fail, rateLimited } from './answers';
import type { FilterFailure } from '../filters/filters';
import type { IngestRequest, IngestResult, PipelineDeps } from './pipeline-contract';
import { reportAccepted, reportBackpressure, reportDuplicate, reportIgnored } from './outcome-reports';
import { withRouteKeys } from './route-keys';
import { jobRouteOf } from '../routes/job-route';
import type { Route } from '../routes/routes';
import { SequentialAcceptor } from '../stores/accept';

/** The store's own `accept`, or for a store without one the same steps run one after another. */
export function acceptorOf(store: Store): (request: AcceptRequest) => Promise<AcceptOutcome> {
  if (store.accept) return store.accept.bind(store);
  const acceptor = new SequentialAcceptor(store);
  return (request) => acceptor.accept(request);
}

export interface MadeJobRoute {
  definition: JobRoute;
  json: string;
}

/** A route's JobRoute and its JSON, made once per Route object (subscriptions get new objects when their file changes). */
export class JobRoutes {
  private readonly made = new WeakMap<Route, MadeJobRoute>();

  of(route: Route): MadeJobRoute {
    let made = this.made.get(route);
    if (!made) {
      const definition = jobRouteOf(route);
      made = { definition, json: JSON.stringify(definition) };
      this.made.set(route, made);
    }
    return made;
  }
}

/**
 * What the store is asked to accept. `jobRoute` is absent for an event that runs no agent (its type is not
 * wanted, or the filter dropped it): its delivery id is still remembered.
 */
export function acceptRequestOf(
  route: Route,
  limits: PipelineDeps['limits'],
  deliveryId: string,
  event: string,
  payload: Record<string, unknown>,
  payloadJson: string | undefined,
  jobRoute: MadeJobRoute | undefined,
): AcceptRequest {
  return {
    route: route.name,
    deliveryId,
    rateLimit: limits.rateLimit,
    maxPending: limits.maxPending,
    // The job carries its route's definition (no secrets), so it still runs if the route is removed meanwhile.
    job: jobRoute
      ? withRouteKeys(route, { route: route.name, event, deliveryId, payload, receivedAt: Date.now(), routeDefinition: jobRoute.definition })
      : undefined,
    // The JSON texts go along, so a durable store does not serialise the payload or the route again.
    hints: { payloadJson, routeDefinitionJson: jobRoute?.json },
  };
}

/**
 * The answer to the store's outcome, reported as the lifecycle/log policy says (outcome-reports.ts). Positional
 * arguments, not an object: this runs once per request on the hot path.
 */
export function answerOutcome(
  deps: Pick<PipelineDeps, 'logger' | 'lifecycle' | 'limits'>,
  route: Route,
  req: IngestRequest,
  result: AcceptOutcome,
  deliveryId: string,
  event: string,
  receivedAt: number,
  filtered: FilterFailure | undefined,
): IngestResult {
  switch (result.outcome) {
    case 'rate_limited':
      return rateLimited(result.retryAfterSeconds);
    case 'duplicate':
      reportDuplicate(deps, route, req, deliveryId, event, receivedAt);
      return { status: 200, body: { status: 'duplicate', delivery_id: deliveryId } };
    case 'ignored':
      reportIgnored(deps, route, req, deliveryId, event, receivedAt, filtered);
      // Both are answered 200 (a sender must not retry them). An event-type miss keeps the body senders and
      // tests know ({status, event}); a filtered event says why.
      return { status: 200, body: filtered ? { status: 'ignored', event, reason: filtered.by ?? 'filter' } : { status: 'ignored', event } };
    case 'backpressure':
      reportBackpressure(deps, route, deps.limits.maxPending);
      return fail('HW_E_BACKPRESSURE', undefined, { 'Retry-After': '30' });
    case 'accepted':
      break;
  }
  reportAccepted(deps, route, req, result.jobId, deliveryId, event, receivedAt);
  const body: Record<string, unknown> = { status: 'accepted', route: route.name, event, delivery_id: deliveryId };
  // The event joined a job that waits for its coalesce window: one agent run for all of them.
  if (result.coalesced) body.coalesced = true;
  return { status: 202, body };
}
