// The request pipeline of DESIGN 3, framework-free: throttle, route, size, rate limit, verify, parse, dedupe, filter, enqueue.
// Everything sender-specific (headers, signatures, event type, delivery id, handshakes) is asked of a Source.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'winston';
import {
  ERROR_CATALOGUE,
  errorMessage,
  headerValue,
  type AcceptOutcome,
  type AcceptRequest,
  type ErrorCode,
  type HeaderMap,
  type JobRoute,
  type Source,
  type SourceRequest,
  type SourceVerdict,
  type Store,
} from '@hookwise/core';
import type { AuthFailureThrottle } from './auth-throttle';
import { BodyTooLargeError, parsePayload, readBodyLimited } from './body';
import type { TrustedProxies } from './client-address';
import { INSECURE_NO_AUTH } from '../config/schema';
import type { Lifecycle } from '../observe/lifecycle';
import { rejectionReason } from './rejection-reason';
import { eventAccepted } from './events';
import { routeFilter, type FilterFailure } from './filters';
import { withRouteKeys } from './route-keys';
import { jobRouteOf } from '../jobs/job-route';
import type { Route, RouteTable } from '../routes/routes';
import type { StoreStatus } from '../observe/store-status';
import { SequentialAcceptor } from '../stores/accept';

export interface IngestRequest {
  route: string;
  headers: HeaderMap;
  /** The raw body: a stream (read here with the size limit) or bytes already read. */
  body: NodeJS.ReadableStream | Buffer;
  /** The request target as received (path and query), for sources that sign the URL. */
  url?: string;
  /**
   * The TCP peer's address (node: `req.socket.remoteAddress`). The failed-authentication throttle keys by it, or
   * by X-Forwarded-For when the peer is one of `trusted_proxies`; without it that throttle does not apply.
   */
  remoteAddress?: string;
}

export interface IngestResult {
  status: number;
  /** An object is sent as JSON; a string (a handshake's text answer) as is, with `contentType`. */
  body: Record<string, unknown> | string;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface PipelineLimits {
  rateLimit: number;
  maxBodyBytes: number;
  /** Above this many pending jobs, new events get 503 (backpressure). */
  maxPending: number;
}

export interface NamedSource {
  id: string;
  source: Source;
}

export interface PipelineDeps {
  routes: RouteTable;
  /**
   * The sources a route accepts: the one it pins (`source:`), or, for a route that pins none, the SPEC's styles
   * (GitHub, GitLab, generic, and API 1 verifier plugins) in the order their event and delivery headers are read.
   */
  sourcesFor(route: Route): NamedSource[] | Promise<NamedSource[]>;
  /** `platforms.webhook.extra.public_url`: the origin senders post to, for sources that sign the URL. */
  publicUrl?: string;
  store: Store;
  limits: PipelineLimits;
  logger: Logger;
  isShuttingDown?: () => boolean;
  /** Told what became of each request (accepted, rejected, duplicate, ignored); only events someone listens to are built. */
  lifecycle?: Lifecycle;
  /** `auth_failure_limit`: refuses clients that fail verification too often, and aggregates their warnings. */
  authThrottle?: AuthFailureThrottle;
  /** `trusted_proxies`: whose X-Forwarded-For names the client. */
  trustedProxies?: TrustedProxies;
  /** Told how store calls went, for /health. */
  storeStatus?: StoreStatus;
}

function fail(code: ErrorCode, message?: string, headers?: Record<string, string>): IngestResult {
  return { status: ERROR_CATALOGUE[code].status ?? 500, body: { error: message ?? ERROR_CATALOGUE[code].message }, headers };
}

/** `<ms-timestamp>-<random>`: unique even for two id-less requests in one millisecond. */
export function generateDeliveryId(): string {
  return `${Date.now()}-${randomBytes(6).toString('hex')}`;
}

/** The payload's own `event_type` (SPEC 4.1), the fallback after the source's event header. */
export function payloadEventType(payload: Record<string, unknown>): string | undefined {
  const value = payload.event_type;
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/** The first answer any of `sources` gives; a source that throws is skipped. */
function firstAnswer(sources: readonly NamedSource[], ask: (source: Source) => string | undefined): string | undefined {
  for (const { source } of sources) {
    try {
      const value = ask(source);
      if (value !== undefined && value !== '') return value;
    } catch {
      /* a broken header is no event type; the next source or the fallback answers */
    }
  }
  return undefined;
}

/** The source that checks a request: the route's pinned one, or the first SPEC style whose header is present. */
function chooseSource(route: Route, candidates: readonly NamedSource[], headers: HeaderMap): NamedSource | undefined {
  return route.source !== undefined ? candidates[0] : candidates.find(({ source }) => source.headers.some((h) => headerValue(headers, h) !== undefined));
}

const rateLimited = (retryAfterSeconds: number): IngestResult => fail('HW_E_RATE_LIMITED', undefined, { 'Retry-After': String(retryAfterSeconds) });

/**
 * The store failed (another process holds the SQLite lock, Redis is unreachable): nothing was stored, and the
 * sender should retry, so 503 with Retry-After, never 500. docs/security.md lists the 5xx answers.
 */
/**
 * How long the request path waits for one store call. A store that does not answer (Redis unreachable: its
 * commands wait for the reconnect) must not hold the sender's connection until the sender gives up; the call
 * may still complete later, and the sender's retry then finds the event stored and is answered duplicate.
 */
export const STORE_CALL_TIMEOUT_MS = 5000;

function withinDeadline<T>(call: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([call, late]).finally(() => clearTimeout(timer));
}

const storeUnavailable = (): IngestResult => ({ status: 503, body: { error: 'Store unavailable, retry later' }, headers: { 'Retry-After': '5' } });

export class WebhookPipeline {
  private readonly accept: (request: AcceptRequest) => Promise<AcceptOutcome>;
  /** A route's JobRoute and its JSON, made once per Route object (subscriptions get new objects when their file changes). */
  private readonly jobRoutes = new WeakMap<Route, { definition: JobRoute; json: string }>();

  constructor(private readonly deps: PipelineDeps) {
    const { store } = deps;
    if (store.accept) {
      this.accept = store.accept.bind(store);
    } else {
      const acceptor = new SequentialAcceptor(store);
      this.accept = (request) => acceptor.accept(request);
    }
  }

  /** Content-Length over the limit: answered before a byte of the body is read. */
  tooLargeByHeader(headers: HeaderMap): boolean {
    const length = headerValue(headers, 'content-length');
    return length !== undefined && Number(length) > this.deps.limits.maxBodyBytes;
  }

  /** The client the throttle keys by: the peer, or behind a trusted proxy the X-Forwarded-For hop it names. */
  clientOf(req: Pick<IngestRequest, 'remoteAddress' | 'headers'>): string | undefined {
    const { trustedProxies } = this.deps;
    if (req.remoteAddress === undefined) return undefined;
    return trustedProxies ? trustedProxies.clientOf(req.remoteAddress, req.headers) : req.remoteAddress.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  }

  handle(req: IngestRequest): Promise<IngestResult> {
    const answered = this.process(req);
    // Nobody listening costs one property read: no wrapper, no event object.
    if (!this.deps.lifecycle?.has('rejected')) return answered;
    const startedAt = Date.now();
    return answered.then(async (result) => {
      if (result.status >= 400) await this.reportRejected(req, result, startedAt);
      return result;
    });
  }

  /** Emits `rejected`, with the source that checked the signature when that failed. */
  private async reportRejected(req: IngestRequest, result: IngestResult, receivedAt: number): Promise<void> {
    const route = this.deps.routes.get(req.route);
    const reason = rejectionReason(result);
    let source: string | undefined;
    if (route && (reason === 'missing_signature' || reason === 'invalid_signature')) {
      // A source that cannot be created was already answered for; the event must not turn into a 500.
      source = await Promise.resolve(this.deps.sourcesFor(route)).then(
        (candidates) => chooseSource(route, candidates, req.headers)?.id ?? 'none',
        () => 'none',
      );
    }
    this.deps.lifecycle?.emit('rejected', {
      route: req.route,
      knownRoute: route !== undefined,
      status: result.status,
      reason,
      source,
      headers: req.headers,
      receivedAt,
    });
  }

  private async process(req: IngestRequest): Promise<IngestResult> {
    const { routes, store, limits, logger } = this.deps;
    if (this.deps.isShuttingDown?.()) return fail('HW_E_SHUTTING_DOWN', undefined, { 'Retry-After': '5' });

    // 0. A client over auth_failure_limit is refused before anything is read or verified.
    const client = this.clientOf(req);
    const blockedFor = this.deps.authThrottle?.blockedFor(client) ?? 0;
    if (blockedFor > 0) return { status: 429, body: { error: 'Too many failed authentications, retry later' }, headers: { 'Retry-After': String(blockedFor) } };

    // 1. Route.
    const route = routes.get(req.route);
    if (!route) return fail('HW_E_UNKNOWN_ROUTE', `Unknown route: ${req.route}`);

    // 2. Size: by Content-Length first, then while reading.
    if (this.tooLargeByHeader(req.headers)) return fail('HW_E_PAYLOAD_TOO_LARGE');

    // 3. Rate limit: peek now; only accepted work is counted (in accept).
    let window;
    try {
      window = await withinDeadline(store.rateLimiter.check(route.name, limits.rateLimit), STORE_CALL_TIMEOUT_MS);
    } catch (err) {
      this.storeFailed(route, err);
      return storeUnavailable();
    }
    if (!window.allowed) return rateLimited(window.retryAfterSeconds);

    let raw: Buffer;
    try {
      raw = Buffer.isBuffer(req.body) ? req.body : await readBodyLimited(req.body, limits.maxBodyBytes);
    } catch (err) {
      if (err instanceof BodyTooLargeError) return fail('HW_E_PAYLOAD_TOO_LARGE');
      throw err;
    }
    if (raw.length > limits.maxBodyBytes) return fail('HW_E_PAYLOAD_TOO_LARGE');

    // 4. Verification by the route's source (pinned), or by the SPEC style whose header is present.
    const candidates = await this.deps.sourcesFor(route);
    const pinned = route.source !== undefined;
    const sourceReq: SourceRequest = { headers: req.headers, rawBody: raw, url: this.fullUrl(req), receivedAt: Date.now() };
    const chosen = chooseSource(route, candidates, req.headers);
    let secret = '';
    if (route.secret !== INSECURE_NO_AUTH) {
      const verdict = this.verify(route, chosen, sourceReq, client);
      if (!verdict.ok) return verdict.result;
      secret = route.secrets[verdict.secretIndex] ?? '';
    }
    // 5. Parse. A bad body is answered 400 without using the route's window: only accepted work counts.
    const parsed = chosen?.source.parse ? this.parseBySource(chosen, sourceReq) : parsePayload(raw, req.headers);
    if (!parsed?.payload) return fail('HW_E_BAD_BODY');
    const { payload } = parsed;

    // A handshake (URL verification, PING) is answered at once; nothing is queued.
    const handshake = chosen?.source.handshake?.(sourceReq, payload, secret);
    if (handshake) {
      logger.info(`answered the ${chosen?.id} handshake on route '${route.name}'`, { route: route.name, source: chosen?.id });
      const isText = typeof handshake.body === 'string';
      return { status: handshake.status, body: handshake.body, contentType: handshake.contentType ?? (isText ? 'text/plain; charset=utf-8' : undefined) };
    }

    // 6.-8. Count the hit, claim the delivery id, filter, enqueue: one store step (atomic where the store can).
    // A pinned route asks its source; one that pins none asks the SPEC styles in order (GitHub's headers, then
    // GitLab's, then the generic X-Request-ID), whichever style verified it.
    const askable = pinned ? candidates.slice(0, 1) : candidates;
    const deliveryId = firstAnswer(askable, (s) => s.deliveryId?.(sourceReq, payload)) ?? generateDeliveryId();
    const event = firstAnswer(askable, (s) => s.eventType?.(sourceReq, payload)) ?? payloadEventType(payload) ?? '';
    // An event-type miss and a filtered event take the same path: no job, the delivery id remembered, 200 ignored.
    let filtered: FilterFailure | undefined;
    const wanted = eventAccepted(route.events, event);
    const filter = wanted ? routeFilter(route) : undefined;
    if (filter) {
      // Declarative tests answer at once; only a JSONata expression is awaited.
      const tested = filter.test(payload);
      const verdict = tested instanceof Promise ? await tested : tested;
      if (!verdict.passed) filtered = verdict;
    }
    let result: AcceptOutcome;
    try {
      // The job carries its route's definition (no secrets), so it still runs if the route is removed meanwhile.
      const jobRoute = wanted && !filtered ? this.jobRoute(route) : undefined;
      result = await withinDeadline(
        this.accept({
          route: route.name,
          deliveryId,
          rateLimit: limits.rateLimit,
          maxPending: limits.maxPending,
          job: jobRoute
            ? withRouteKeys(route, { route: route.name, event, deliveryId, payload, receivedAt: Date.now(), routeDefinition: jobRoute.definition })
            : undefined,
          // The JSON texts go along, so a durable store does not serialise the payload or the route again.
          hints: { payloadJson: parsed.json, routeDefinitionJson: jobRoute?.json },
        }),
        STORE_CALL_TIMEOUT_MS,
      );
    } catch (err) {
      this.storeFailed(route, err);
      return storeUnavailable();
    }
    this.deps.storeStatus?.succeeded('accept');
    switch (result.outcome) {
      case 'rate_limited':
        return rateLimited(result.retryAfterSeconds);
      case 'duplicate':
        logger.info(`duplicate delivery ${deliveryId} on route '${route.name}' skipped`, { route: route.name, delivery_id: deliveryId });
        if (this.deps.lifecycle?.has('duplicate'))
          this.deps.lifecycle.emit('duplicate', { route: route.name, deliveryId, event, headers: req.headers, receivedAt: sourceReq.receivedAt });
        return { status: 200, body: { status: 'duplicate', delivery_id: deliveryId } };
      case 'ignored':
        return this.ignored(route, req, { deliveryId, event, receivedAt: sourceReq.receivedAt }, filtered);
      case 'backpressure':
        logger.warn(`backpressure: more than ${limits.maxPending} pending jobs, event on route '${route.name}' answered 503`);
        return fail('HW_E_BACKPRESSURE', undefined, { 'Retry-After': '30' });
      case 'accepted':
        if (this.deps.lifecycle?.has('accepted'))
          this.deps.lifecycle.emit('accepted', {
            route: route.name,
            jobId: result.jobId,
            deliveryId,
            event,
            headers: req.headers,
            receivedAt: sourceReq.receivedAt,
          });
        break;
    }
    // debug, not info: one line per accepted request costs the hot path more than the rest of the pipeline;
    // the worker logs every delivery at info.
    if (logger.isLevelEnabled('debug'))
      logger.debug(`accepted ${event || 'event'} on route '${route.name}' (delivery ${deliveryId})`, { route: route.name, event, delivery_id: deliveryId });
    const body: Record<string, unknown> = { status: 'accepted', route: route.name, event, delivery_id: deliveryId };
    // The event joined a job that waits for its coalesce window: one agent run for all of them.
    if (result.coalesced) body.coalesced = true;
    return { status: 202, body };
  }

  /**
   * An event that runs no agent: its type is not one the route accepts, or it failed the route's filter. Both
   * are answered 200 (a sender must not retry them); the log says which, and for a filter which test failed.
   */
  private ignored(route: Route, req: IngestRequest, what: { deliveryId: string; event: string; receivedAt: number }, filtered?: FilterFailure): IngestResult {
    const { logger, lifecycle } = this.deps;
    const { deliveryId, event } = what;
    const meta = { route: route.name, event, delivery_id: deliveryId, reason: filtered ? 'filter' : 'event' };
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
        receivedAt: what.receivedAt,
        reason: filtered ? 'filter' : 'event',
        ...(filtered ? { filter: filtered.reason } : {}),
      });
    // An event-type miss keeps the body senders and tests know ({status, event}); a filtered event says why.
    return { status: 200, body: filtered ? { status: 'ignored', event, reason: 'filter' } : { status: 'ignored', event } };
  }

  private jobRoute(route: Route): { definition: JobRoute; json: string } {
    let made = this.jobRoutes.get(route);
    if (!made) {
      const definition = jobRouteOf(route);
      made = { definition, json: JSON.stringify(definition) };
      this.jobRoutes.set(route, made);
    }
    return made;
  }

  /** A store call failed: logged, and remembered for /health until a call works again. */
  private storeFailed(route: Route, err: unknown): void {
    const message = errorMessage(err);
    this.deps.storeStatus?.failed('accept', message);
    this.deps.logger.error(`could not store an event on route '${route.name}' (answered 503, the sender retries): ${message}`, { route: route.name });
  }

  /** The sender's URL of a request: the configured public origin (or the Host header) and the path as received. */
  private fullUrl(req: IngestRequest): string {
    const path = req.url ?? `/webhooks/${req.route}`;
    const origin = this.deps.publicUrl ?? `http://${headerValue(req.headers, 'host') ?? 'localhost'}`;
    return `${origin}${path}`;
  }

  private parseBySource(chosen: NamedSource, req: SourceRequest): { payload?: Record<string, unknown>; json?: string } | undefined {
    try {
      const payload = chosen.source.parse?.(req);
      return payload && typeof payload === 'object' && !Array.isArray(payload) ? { payload } : undefined;
    } catch (err) {
      this.deps.logger.warn(`source '${chosen.id}' could not parse the body: ${errorMessage(err)}`);
      return undefined;
    }
  }

  private verify(
    route: Route,
    chosen: NamedSource | undefined,
    req: SourceRequest,
    client: string | undefined,
  ): { ok: true; secretIndex: number } | { ok: false; result: IngestResult } {
    const { logger, authThrottle } = this.deps;
    const meta = client === undefined ? { route: route.name, source: chosen?.id } : { route: route.name, source: chosen?.id, client };
    // Counted per client; only the first failure of a client's minute is logged at once (auth-throttle.ts).
    const warn = (kind: 'Missing signature' | 'Invalid signature', line: string): void => {
      if (!authThrottle || authThrottle.failed(client, route.name, kind)) logger.warn(line, meta);
    };
    if (!chosen) {
      warn(
        'Missing signature',
        `Missing signature on route '${route.name}': no recognised signature header (accepted: GitHub X-Hub-Signature-256, GitLab X-Gitlab-Token, X-Webhook-Signature; pin a source with \`source:\` for other senders)`,
      );
      return { ok: false, result: fail('HW_E_MISSING_SIGNATURE') };
    }
    let verdict: SourceVerdict;
    try {
      verdict = chosen.source.verify(req, route.secrets);
    } catch (err) {
      verdict = { ok: false, reason: `source error: ${errorMessage(err)}` };
    }
    if (verdict.ok) {
      if (verdict.secretIndex > 0) {
        logger.info(
          `route '${route.name}' verified with secret #${verdict.secretIndex + 1} of ${route.secrets.length} (${chosen.id}): senders still use an older secret; remove it once none does`,
          { ...meta, secret_index: verdict.secretIndex },
        );
      }
      return { ok: true, secretIndex: verdict.secretIndex };
    }
    const origin = route.secretOrigin === 'global' ? 'the global secret' : `the ${route.secretOrigin ?? 'route'}'s own secret`;
    if (verdict.missing) {
      warn('Missing signature', `Missing signature on route '${route.name}' (${chosen.id}: ${verdict.reason})`);
      return { ok: false, result: fail('HW_E_MISSING_SIGNATURE') };
    }
    warn(
      'Invalid signature',
      `Invalid signature on route '${route.name}' (${chosen.id}: ${verdict.reason}; checked against ${origin}${route.secrets.length > 1 ? `s (${route.secrets.length})` : ''})`,
    );
    return { ok: false, result: fail('HW_E_INVALID_SIGNATURE') };
  }
}
