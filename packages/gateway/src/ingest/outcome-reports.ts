// What the pipeline tells about a request once it is decided: the lifecycle events (only those someone listens
// to are built) and the log lines, with the level each outcome is worth.
import type { Logger } from 'winston';
import { clientAborted } from './answers';
import type { BodyAbortedError } from './body';
import type { FilterFailure } from '../filters/filters';
import { throttleFor, type LogThrottle } from './log-throttle';
import type { IngestRequest, IngestResult, PipelineDeps } from './pipeline-contract';
import { rejectionReason } from './rejection-reason';
import { chooseSource } from './verification';
import type { Route } from '../routes/routes';

type Reporting = Pick<PipelineDeps, 'logger' | 'lifecycle'>;

/** `answered`, reporting a 4xx/5xx answer as `rejected` when someone listens; nobody listening costs one property read. */
export function withRejectedReport(
  deps: Pick<PipelineDeps, 'lifecycle' | 'routes' | 'sourcesFor'>,
  req: IngestRequest,
  answered: Promise<IngestResult>,
): Promise<IngestResult> {
  // No wrapper and no event object unless `rejected` is heard.
  if (!deps.lifecycle?.has('rejected')) return answered;
  const startedAt = Date.now();
  return answered.then(async (result) => {
    if (result.status >= 400) await reportRejected(deps, req, result, startedAt);
    return result;
  });
}

/** Emits `rejected`, with the source that checked the signature when that failed. */
async function reportRejected(
  deps: Pick<PipelineDeps, 'lifecycle' | 'routes' | 'sourcesFor'>,
  req: IngestRequest,
  result: IngestResult,
  receivedAt: number,
): Promise<void> {
  const route = deps.routes.get(req.route);
  const reason = rejectionReason(result);
  let source: string | undefined;
  if (route && (reason === 'missing_signature' || reason === 'invalid_signature')) {
    // A source that cannot be created was already answered for; the event must not turn into a 500.
    source = await Promise.resolve(deps.sourcesFor(route)).then(
      (candidates) => chooseSource(route, candidates, req.headers)?.id ?? 'none',
      () => 'none',
    );
  }
  deps.lifecycle?.emit('rejected', {
    route: req.route,
    knownRoute: route !== undefined,
    status: result.status,
    reason,
    source,
    headers: req.headers,
    receivedAt,
  });
}

export function reportDuplicate(deps: Reporting, route: Route, req: IngestRequest, deliveryId: string, event: string, receivedAt: number): void {
  req.decided = { outcome: 'duplicate', route: route.name, event, deliveryId };
  deps.logger.info(`duplicate delivery ${deliveryId} on route '${route.name}' skipped`, { route: route.name, delivery_id: deliveryId });
  if (deps.lifecycle?.has('duplicate')) deps.lifecycle.emit('duplicate', { route: route.name, deliveryId, event, headers: req.headers, receivedAt });
}

/**
 * An event that runs no agent: its type is not one the route accepts, or it failed the route's filter. The log
 * says which, and for a filter which test failed; a filter that could not be evaluated is a warning.
 */
export function reportIgnored(
  deps: Reporting,
  route: Route,
  req: IngestRequest,
  deliveryId: string,
  event: string,
  receivedAt: number,
  filtered: FilterFailure | undefined,
): void {
  const { logger, lifecycle } = deps;
  req.decided = { outcome: 'ignored', route: route.name, event, deliveryId };
  const meta = { route: route.name, event, delivery_id: deliveryId, reason: filtered ? (filtered.by ?? 'filter') : 'event' };
  if (!filtered) {
    logger.info(`event '${event || '(none)'}' ignored by route '${route.name}' (accepts: ${route.events.join(', ')})`, meta);
  } else if (filtered.error) {
    logger.warn(`event '${event || '(none)'}' on route '${route.name}' filtered out: ${filtered.reason}`, meta);
  } else {
    logger.info(`event '${event || '(none)'}' filtered out by route '${route.name}': ${filtered.reason}`, meta);
  }
  if (lifecycle?.has('ignored'))
    lifecycle.emit('ignored', {
      route: route.name,
      deliveryId,
      event,
      headers: req.headers,
      receivedAt,
      reason: filtered ? (filtered.by ?? 'filter') : 'event',
      ...(filtered ? { filter: filtered.reason } : {}),
    });
}

export function reportBackpressure(deps: Reporting, route: Route, maxPending: number): void {
  deps.logger.warn(`backpressure: more than ${maxPending} pending jobs, event on route '${route.name}' answered 503`);
}

export function reportAccepted(deps: Reporting, route: Route, req: IngestRequest, jobId: string, deliveryId: string, event: string, receivedAt: number): void {
  const { logger, lifecycle } = deps;
  req.decided = { outcome: 'accepted', route: route.name, event, deliveryId };
  if (lifecycle?.has('accepted')) lifecycle.emit('accepted', { route: route.name, jobId, deliveryId, event, headers: req.headers, receivedAt });
  // debug, not info: one line per accepted request costs the hot path more than the rest of the pipeline;
  // the worker logs every delivery at info.
  if (logger.isLevelEnabled('debug'))
    logger.debug(`accepted ${event || 'event'} on route '${route.name}' (delivery ${deliveryId})`, { route: route.name, event, delivery_id: deliveryId });
}

/** At most one "closed the connection" line per minute per gateway: any client can cause one for free. */
const CLIENT_ABORTED_LOG_WINDOW_MS = 60_000;
const clientAbortedThrottles = new WeakMap<Logger, LogThrottle>();

/**
 * A client hung up mid-body: its fault, logged at info (throttled) and answered like other client faults, so that
 * `rejected` counts it as client_aborted. The answer reaches nobody; the access log and the metrics read it.
 */
export function reportClientAborted(deps: Reporting, route: Route, err: BodyAbortedError, client: string | undefined): IngestResult {
  const left = throttleFor(clientAbortedThrottles, deps.logger, CLIENT_ABORTED_LOG_WINDOW_MS).take();
  if (left !== undefined) {
    const more = left > 0 ? ` (${left} more since the last such line)` : '';
    deps.logger.info(`a client on route '${route.name}' closed the connection before its body was complete, after ${err.received} bytes${more}`, {
      route: route.name,
      reason: 'client_aborted',
      client,
    });
  }
  return clientAborted();
}
