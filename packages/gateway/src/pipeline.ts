// The request pipeline of DESIGN 3, framework-free: route, size, rate limit, verify, parse, dedupe, filter, enqueue.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'winston';
import type { HeaderMap, Verifier } from '@hookwise/core';
import { BodyTooLargeError, parsePayload, readBodyLimited } from './body';
import { INSECURE_NO_AUTH } from './config/schema';
import { ERROR_CATALOGUE, errorMessage, type ErrorCode } from '@hookwise/core';
import { headerValue } from '@hookwise/core';
import { eventAccepted, readEventType } from './events';
import type { RouteTable } from './routes';
import { SequentialAcceptor } from './stores/accept';
import type { AcceptOutcome, AcceptRequest, Store } from '@hookwise/core';

export interface IngestRequest {
  route: string;
  headers: HeaderMap;
  /** The raw body: a stream (read here with the size limit) or bytes already read. */
  body: NodeJS.ReadableStream | Buffer;
}

export interface IngestResult {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface PipelineLimits {
  rateLimit: number;
  maxBodyBytes: number;
  /** Above this many pending jobs, new events get 503 (backpressure). */
  maxPending: number;
}

export interface NamedVerifier {
  id: string;
  verifier: Verifier;
}

export interface PipelineDeps {
  routes: RouteTable;
  verifiers: NamedVerifier[];
  store: Store;
  limits: PipelineLimits;
  logger: Logger;
  isShuttingDown?: () => boolean;
}

function fail(code: ErrorCode, message?: string, headers?: Record<string, string>): IngestResult {
  return { status: ERROR_CATALOGUE[code].status ?? 500, body: { error: message ?? ERROR_CATALOGUE[code].message }, headers };
}

/** `<ms-timestamp>-<random>`: unique even for two id-less requests in one millisecond. */
export function generateDeliveryId(): string {
  return `${Date.now()}-${randomBytes(6).toString('hex')}`;
}

export function readDeliveryId(headers: HeaderMap): string | undefined {
  return headerValue(headers, 'x-codehosta-delivery') ?? headerValue(headers, 'x-request-id');
}

const rateLimited = (retryAfterSeconds: number): IngestResult => fail('HW_E_RATE_LIMITED', undefined, { 'Retry-After': String(retryAfterSeconds) });

export class WebhookPipeline {
  private readonly accept: (request: AcceptRequest) => Promise<AcceptOutcome>;

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

  async handle(req: IngestRequest): Promise<IngestResult> {
    const { routes, store, limits, logger } = this.deps;
    if (this.deps.isShuttingDown?.()) return fail('HW_E_SHUTTING_DOWN', undefined, { 'Retry-After': '5' });

    // 1. Route.
    const route = routes.get(req.route);
    if (!route) return fail('HW_E_UNKNOWN_ROUTE', `Unknown route: ${req.route}`);

    // 2. Size: by Content-Length first, then while reading.
    if (this.tooLargeByHeader(req.headers)) return fail('HW_E_PAYLOAD_TOO_LARGE');

    // 3. Rate limit: peek now, count only after verification.
    const window = await store.rateLimiter.check(route.name, limits.rateLimit);
    if (!window.allowed) return rateLimited(window.retryAfterSeconds);

    let raw: Buffer;
    try {
      raw = Buffer.isBuffer(req.body) ? req.body : await readBodyLimited(req.body, limits.maxBodyBytes);
    } catch (err) {
      if (err instanceof BodyTooLargeError) return fail('HW_E_PAYLOAD_TOO_LARGE');
      throw err;
    }
    if (raw.length > limits.maxBodyBytes) return fail('HW_E_PAYLOAD_TOO_LARGE');

    // 4. Verification.
    if (route.secret !== INSECURE_NO_AUTH) {
      const verdict = this.verify(route.name, route.secret ?? '', req.headers, raw);
      if (verdict) return verdict;
    }
    // 5. Parse. A request that passed verification counts against the rate limit even when its body is bad.
    const parsed = parsePayload(raw, req.headers);
    if (!parsed?.payload) {
      const counted = await store.rateLimiter.hit(route.name, limits.rateLimit);
      return counted.allowed ? fail('HW_E_BAD_BODY') : rateLimited(counted.retryAfterSeconds);
    }

    // 6.-8. Count the hit, claim the delivery id, filter, enqueue: one store step (atomic where the store can).
    const { payload } = parsed;
    const deliveryId = readDeliveryId(req.headers) ?? generateDeliveryId();
    const event = readEventType(req.headers, payload);
    const wanted = eventAccepted(route.events, event);
    let result: AcceptOutcome;
    try {
      result = await this.accept({
        route: route.name,
        deliveryId,
        rateLimit: limits.rateLimit,
        maxPending: limits.maxPending,
        // The JSON text as received goes along, so a durable store does not serialise the payload again.
        job: wanted ? { route: route.name, event, deliveryId, payload, receivedAt: Date.now() } : undefined,
        hints: { payloadJson: parsed.json },
      });
    } catch (err) {
      logger.error(`could not enqueue event on route '${route.name}': ${errorMessage(err)}`);
      return fail('HW_E_INTERNAL', 'Could not store the event, retry later', { 'Retry-After': '5' });
    }
    switch (result.outcome) {
      case 'rate_limited':
        return rateLimited(result.retryAfterSeconds);
      case 'duplicate':
        logger.info(`duplicate delivery ${deliveryId} on route '${route.name}' skipped`, { route: route.name, delivery_id: deliveryId });
        return { status: 200, body: { status: 'duplicate', delivery_id: deliveryId } };
      case 'ignored':
        logger.info(`event '${event || '(none)'}' ignored by route '${route.name}' (accepts: ${route.events.join(', ')})`, { route: route.name, event, delivery_id: deliveryId });
        return { status: 200, body: { status: 'ignored', event } };
      case 'backpressure':
        logger.warn(`backpressure: more than ${limits.maxPending} pending jobs, event on route '${route.name}' answered 503`);
        return fail('HW_E_BACKPRESSURE', undefined, { 'Retry-After': '30' });
      case 'accepted':
        break;
    }
    // debug, not info: one line per accepted request costs the hot path more than the rest of the pipeline;
    // the worker logs every delivery at info.
    if (logger.isLevelEnabled('debug')) logger.debug(`accepted ${event || 'event'} on route '${route.name}' (delivery ${deliveryId})`, { route: route.name, event, delivery_id: deliveryId });
    return { status: 202, body: { status: 'accepted', route: route.name, event, delivery_id: deliveryId } };
  }

  private verify(routeName: string, secret: string, headers: HeaderMap, rawBody: Buffer): IngestResult | undefined {
    const chosen = this.deps.verifiers.find(({ verifier }) => verifier.headers.some((h) => headerValue(headers, h.toLowerCase()) !== undefined));
    if (!chosen) {
      this.deps.logger.warn(`Missing signature on route '${routeName}': no recognised signature header`, { route: routeName });
      return fail('HW_E_MISSING_SIGNATURE');
    }
    let ok = false;
    let reason = '';
    try {
      const result = chosen.verifier.verify({ headers, rawBody }, secret);
      ok = result.ok;
      if (!result.ok) reason = result.reason;
    } catch (err) {
      reason = `verifier error: ${errorMessage(err)}`;
    }
    if (ok) return undefined;
    this.deps.logger.warn(`Invalid signature on route '${routeName}' (${chosen.id}: ${reason})`, { route: routeName, verifier: chosen.id });
    return fail('HW_E_INVALID_SIGNATURE');
  }
}
