// One tick (or a `routes run`) as an event of its route: the route's filter, then the store's accept with a delivery
// id made of the route and the tick's time, so the store's per-route claim of delivery ids lets exactly one of the
// gateways sharing it enqueue the tick. Reported like a webhook's event (lifecycle, metrics, dashboard).
import type { AcceptOutcome, AcceptRequest } from '@hookwise/core';
import { requestViewOf } from '../filters/filter-tests';
import { routeFilter, type FilterFailure } from '../filters/filters';
import { acceptRequestOf, answerOutcome, type JobRoutes } from '../ingest/accept-step';
import type { IngestRequest, IngestResult, PipelineDeps } from '../ingest/pipeline-contract';
import { STORE_CALL_TIMEOUT_MS, withinDeadline } from '../ingest/store-call';
import type { Route } from '../routes/routes';

/** The event type of every tick and of `hookwise routes run`. */
export const SCHEDULE_EVENT = 'schedule';

/** The delivery id of a route's tick: the same on every gateway, so the store claims it once. */
export function tickDeliveryId(route: string, tickIso: string): string {
  return `${SCHEDULE_EVENT}:${route}:${tickIso}`;
}

export interface TickDeps extends Pick<PipelineDeps, 'logger' | 'lifecycle' | 'storeStatus'> {
  limits: PipelineDeps['limits'];
  accept(request: AcceptRequest): Promise<AcceptOutcome>;
  jobRoutes: JobRoutes;
}

export interface TickResult {
  outcome: AcceptOutcome['outcome'];
  /** What a webhook with this event would have been answered (the admin API passes it on). */
  answer: IngestResult;
  deliveryId: string;
}

/**
 * Accepts one event of `route` with `payload` (scheduled_at included) under `deliveryId`. The route's `events:`
 * list is not asked: it chooses among a sender's event types, and the schedule is the route's own.
 */
export async function acceptTick(deps: TickDeps, route: Route, payload: Record<string, unknown>, deliveryId: string): Promise<TickResult> {
  const payloadJson = JSON.stringify(payload);
  let filtered: FilterFailure | undefined;
  const filter = routeFilter(route);
  if (filter) {
    const verdict = await filter.test(payload, payloadJson, filter.namesRequest ? requestViewOf({}, SCHEDULE_EVENT) : undefined);
    if (!verdict.passed) filtered = verdict;
  }
  const jobRoute = filtered ? undefined : deps.jobRoutes.of(route);
  const request = acceptRequestOf(route, deps.limits, deliveryId, SCHEDULE_EVENT, payload, payloadJson, jobRoute);
  const receivedAt = Date.now();
  const result = await withinDeadline(deps.accept(request), STORE_CALL_TIMEOUT_MS);
  deps.storeStatus?.succeeded('accept');
  // The tick has no request: an empty one carries the route for the reports, as a webhook's would.
  const req: IngestRequest = { route: route.name, headers: {}, body: Buffer.alloc(0) };
  const answer = answerOutcome(deps, route, req, result, deliveryId, SCHEDULE_EVENT, receivedAt, filtered);
  return { outcome: result.outcome, answer, deliveryId };
}
