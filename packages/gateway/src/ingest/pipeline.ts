// The request pipeline of DESIGN 3, framework-free: throttle, route, size, rate limit, verify, parse, dedupe, filter, enqueue.
// Everything sender-specific (headers, signatures, event type, delivery id, handshakes) is asked of a Source.
// This file runs the steps in order; each step lives in its own module. The hot path: the steps are plain
// functions with positional arguments, and every await is here, so that carving added no promise per request.
import type { AcceptOutcome, AcceptRequest, HeaderMap } from '@hookwise/core';
import { fail, rateLimited, shuttingDown } from './answers';
import { acceptorOf, acceptRequestOf, answerOutcome, JobRoutes } from './accept-step';
import { BodyAbortedError, BodyTooLargeError, readBodyLimited } from './body';
import { INSECURE_NO_AUTH } from '../config/schema';
import { eventAccepted } from './events';
import { routeFilter, type FilterFailure } from '../filters/filters';
import { requestViewOf } from '../filters/filter-tests';
import { reportClientAborted, withRejectedReport } from './outcome-reports';
import { badBodyAnswer, deliveryIdOf, eventTypeOf, handshakeAnswer, parseRequest, senderAnswer } from './parse-and-handshake';
import type { EventVerdict, IngestEvent, IngestHook } from './ingest-hooks';
import { ownMessageHook } from './own-message';
import type { IngestRequest, IngestResult, PipelineDeps } from './pipeline-contract';
import { clientOf, throttledClient, tooLargeByHeader } from './request-checks';
import { sourceTakes } from './request-path';
import { STORE_CALL_TIMEOUT_MS, storeFailed, withinDeadline } from './store-call';
import { chooseSource, sourceRequestOf, verifyRequest } from './verification';

export class WebhookPipeline {
  private readonly accept: (request: AcceptRequest) => Promise<AcceptOutcome>;
  private readonly jobRoutes = new JobRoutes();
  /** Hooks by point, the gateway's own-message check first; empty lists cost nothing per request. */
  private readonly onRequest: IngestHook[];
  private readonly onEvent: IngestHook[];
  private readonly onAccept: IngestHook[];

  /** `hooks`: what the features add to the request path (ingest-hooks.ts), in the order they run. */
  constructor(
    private readonly deps: PipelineDeps,
    hooks: readonly IngestHook[] = [],
  ) {
    this.accept = acceptorOf(deps.store);
    const all = [ownMessageHook, ...hooks];
    this.onRequest = all.filter((hook) => hook.request);
    this.onEvent = all.filter((hook) => hook.event);
    this.onAccept = all.filter((hook) => hook.watch);
  }

  /** Content-Length over the limit: answered before a byte of the body is read. */
  tooLargeByHeader(headers: HeaderMap): boolean {
    return tooLargeByHeader(headers, this.deps.limits.maxBodyBytes);
  }

  /** The client the throttle keys by: the peer, or behind a trusted proxy the X-Forwarded-For hop it names. */
  clientOf(req: Pick<IngestRequest, 'remoteAddress' | 'headers'>): string | undefined {
    return clientOf(this.deps.trustedProxies, req);
  }

  /** Whether a request besides `POST /webhooks/<name>` goes to the route's pinned source (Source.requests). */
  async takes(routeName: string, method: string, subPath: string): Promise<boolean> {
    const route = this.deps.routes.get(routeName);
    if (!route || route.source === undefined) return false;
    const [pinned] = await this.deps.sourcesFor(route);
    return sourceTakes(pinned?.source, method, subPath);
  }

  handle(req: IngestRequest): Promise<IngestResult> {
    return withRejectedReport(this.deps, req, this.process(req));
  }

  private async process(req: IngestRequest): Promise<IngestResult> {
    const { deps } = this;
    const { routes, store, limits, logger } = deps;
    if (deps.isShuttingDown?.()) return shuttingDown();

    // 0. A client over auth_failure_limit is refused before anything is read or verified.
    const client = clientOf(deps.trustedProxies, req);
    const throttled = throttledClient(deps.authThrottle, client);
    if (throttled) return throttled;

    // 1. Route.
    const route = routes.get(req.route);
    if (!route) return fail('HW_E_UNKNOWN_ROUTE', `Unknown route: ${req.route}`);

    // 2. Size: by Content-Length first, then while reading.
    if (tooLargeByHeader(req.headers, limits.maxBodyBytes)) return fail('HW_E_PAYLOAD_TOO_LARGE');

    // 3. Rate limit: peek now; only accepted work is counted (in accept).
    let window;
    try {
      window = await withinDeadline(store.rateLimiter.check(route.name, limits.rateLimit), STORE_CALL_TIMEOUT_MS);
    } catch (err) {
      return storeFailed(deps, route, err);
    }
    if (!window.allowed) return rateLimited(window.retryAfterSeconds);

    let raw: Buffer;
    try {
      raw = Buffer.isBuffer(req.body) ? req.body : await readBodyLimited(req.body, limits.maxBodyBytes);
    } catch (err) {
      if (err instanceof BodyTooLargeError) return fail('HW_E_PAYLOAD_TOO_LARGE');
      if (err instanceof BodyAbortedError) return reportClientAborted(deps, route, err, client);
      throw err;
    }
    if (raw.length > limits.maxBodyBytes) return fail('HW_E_PAYLOAD_TOO_LARGE');

    // 4. Verification by the route's source (pinned), or by the default source whose header is present.
    // The unpinned routes' default sources come back as they are; awaiting them would cost a turn of the microtask queue.
    const found = deps.sourcesFor(route);
    const candidates = Array.isArray(found) ? found : await found;
    const pinned = route.source !== undefined;
    const sourceReq = sourceRequestOf(deps.publicUrl, req, raw);
    const chosen = chooseSource(route, candidates, req.headers);
    let secret = '';
    if (route.secret !== INSECURE_NO_AUTH) {
      const verdict = verifyRequest(deps, route, chosen, sourceReq, client, candidates);
      if (!verdict.ok) return verdict.result;
      secret = route.secrets[verdict.secretIndex] ?? '';
    }
    // 5. Parse. A bad body is answered 400 without using the route's window: only accepted work counts.
    const parsed = parseRequest(logger, chosen, sourceReq);
    if (!parsed?.payload) return badBodyAnswer(logger, route, sourceReq);
    let { payload } = parsed;
    let payloadJson = parsed.json;
    const handshake = handshakeAnswer(logger, route, chosen, sourceReq, payload, secret);
    if (handshake) return handshake;
    // A request that is no event (an Approve / Deny press) is answered by its feature, never enqueued.
    for (const hook of this.onRequest) {
      const found = hook.request!({ req, route, source: chosen, payload });
      const answered = found instanceof Promise ? await found : found;
      if (answered) return answered;
    }

    // 6.-8. Count the hit, claim the delivery id, filter, enqueue: one store step (atomic where the store can).
    // A pinned route asks its source; one that pins none asks the default sources in order (the distribution's
    // order, e.g. one sender's headers, then another's, then the generic X-Request-ID), whichever style verified it.
    const askable = pinned ? candidates.slice(0, 1) : candidates;
    const deliveryId = deliveryIdOf(askable, sourceReq, payload);
    const event = eventTypeOf(askable, sourceReq, payload);
    // An event-type miss and a filtered event take the same path: no job, the delivery id remembered, 200 ignored.
    const wanted = eventAccepted(route.events, event);
    let filtered: FilterFailure | undefined;
    // The features' event hooks, in order (the own message, a conversation's reply, the transform): the first
    // that answers or filters ends the chain.
    if (this.onEvent.length) {
      const seen: IngestEvent = {
        req,
        route,
        source: chosen,
        payload,
        payloadJson,
        deliveryId,
        event,
        receivedAt: sourceReq.receivedAt,
        wanted,
        deps,
        accept: this.accept,
      };
      for (const hook of this.onEvent) {
        const found = hook.event!(seen);
        const verdict: EventVerdict | undefined = found instanceof Promise ? await found : found;
        if (!verdict) continue;
        if ('answer' in verdict) {
          const { answer } = verdict;
          return chosen?.source.eventAnswer && answer.status < 300 ? senderAnswer(chosen.source.eventAnswer) : answer;
        }
        if ('filtered' in verdict) {
          filtered = verdict.filtered;
          break;
        }
        ({ payload, payloadJson } = verdict);
        Object.assign(seen, { payload, payloadJson });
      }
    }
    const filter = wanted && !filtered ? routeFilter(route) : undefined;
    if (filter) {
      // Declarative tests answer at once; only a JSONata expression is awaited.
      // The request view (headers, event) is built only for a filter that names it.
      const tested = filter.test(payload, payloadJson, filter.namesRequest ? requestViewOf(req.headers, event) : undefined);
      const verdict = tested instanceof Promise ? await tested : tested;
      if (!verdict.passed) filtered = verdict;
    }
    let result: AcceptOutcome;
    const jobRoute = wanted && !filtered ? this.jobRoutes.of(route) : undefined;
    // Armed before the store step (deliver_only's wait for its delivery), so a worker faster than this answer is not missed.
    const watch = jobRoute && this.onAccept.length ? this.watchOf(route) : undefined;
    const request = acceptRequestOf(route, limits, deliveryId, event, payload, payloadJson, jobRoute);
    if (request.job?.coalesce && testsNow(req.headers, deliveryId)) delete request.job.coalesce;
    try {
      result = await withinDeadline(this.accept(request), STORE_CALL_TIMEOUT_MS);
    } catch (err) {
      watch?.cancel();
      return storeFailed(deps, route, err);
    }
    deps.storeStatus?.succeeded('accept');
    let answer = answerOutcome(deps, route, req, result, deliveryId, event, sourceReq.receivedAt, filtered);
    if (watch) answer = await watch.answerFor(result, answer);
    return chosen?.source.eventAnswer && answer.status < 300 ? senderAnswer(chosen.source.eventAnswer) : answer;
  }

  /** The first hook that watches this route's job (one feature decides a request's answer). */
  private watchOf(route: IngestEvent['route']) {
    for (const hook of this.onAccept) {
      const watch = hook.watch!(route);
      if (watch) return watch;
    }
    return undefined;
  }
}

/** The header `hookwise webhook test --now` sends; its delivery ids start with TEST_DELIVERY_PREFIX. */
const TEST_NOW_HEADER = 'x-hookwise-test';
const TEST_DELIVERY_PREFIX = 'hookwise-test-';

/**
 * A verified test event of `hookwise webhook test --now` (signed with the route's secret, its delivery id the
 * CLI's): it runs at once instead of waiting for the route's coalesce window. Anything else coalesces as usual.
 */
function testsNow(headers: IngestRequest['headers'], deliveryId: string): boolean {
  const value = headers[TEST_NOW_HEADER];
  return (Array.isArray(value) ? value[0] : value) === 'now' && deliveryId.startsWith(TEST_DELIVERY_PREFIX);
}
