// The request pipeline of DESIGN 3, framework-free: route, size, rate limit, verify, parse, dedupe, filter, enqueue.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'winston';
import type { HeaderMap, Verifier } from './contracts';
import { BodyTooLargeError, parsePayload, readBodyLimited } from './body';
import { INSECURE_NO_AUTH } from './config/schema';
import { ERROR_CATALOGUE, errorMessage, type ErrorCode } from './errors';
import { eventAccepted, headerValue, readEventType } from './events';
import type { RouteTable } from './routes';
import type { Store } from './stores/types';

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

/** How long a pending-job count may be reused while it stays well under the backpressure limit. */
const PENDING_COUNT_REUSE_MS = 250;

export class WebhookPipeline {
  // The last pending count from the store, when it was read, and how many jobs this pipeline enqueued since:
  // count + added is an upper bound, so the store (a COUNT query in SQLite) is asked only when that bound
  // nears the limit or is older than PENDING_COUNT_REUSE_MS, not on every request.
  private pending = { count: 0, at: -Infinity, added: 0 };

  constructor(private readonly deps: PipelineDeps) {}

  private async overBackpressureLimit(): Promise<boolean> {
    const { store, limits } = this.deps;
    const now = Date.now();
    const bound = this.pending.count + this.pending.added;
    if (now - this.pending.at < PENDING_COUNT_REUSE_MS && bound < limits.maxPending) return false;
    this.pending = { count: await store.jobs.pendingCount(), at: now, added: 0 };
    return this.pending.count >= limits.maxPending;
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
    if (!window.allowed) return fail('HW_E_RATE_LIMITED', undefined, { 'Retry-After': String(window.retryAfterSeconds) });

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
    // Counting the hit and claiming the delivery id are independent writes: issued together, a batching store
    // commits them at once (SQLite: one fsync instead of two in a row). A full window or a failed count gives
    // the claim back, so every answer is the one the sequential order (count, parse, claim) gives.
    const hit = store.rateLimiter.hit(route.name, limits.rateLimit);
    const rateLimited = (w: { retryAfterSeconds: number }) => fail('HW_E_RATE_LIMITED', undefined, { 'Retry-After': String(w.retryAfterSeconds) });

    // 5. Parse.
    const parsed = parsePayload(raw, req.headers);
    const payload = parsed?.payload;
    if (!payload) {
      const counted = await hit;
      return counted.allowed ? fail('HW_E_BAD_BODY') : rateLimited(counted);
    }

    // 6. Duplicates.
    const deliveryId = readDeliveryId(req.headers) ?? generateDeliveryId();
    const claim = store.deliveryIds.claim(route.name, deliveryId);
    // Awaited below; this only keeps a failure that arrives while we wait for `hit` from counting as unhandled.
    claim.catch(() => undefined);
    const giveBack = async () => {
      if (await claim.catch(() => false)) await store.deliveryIds.release(route.name, deliveryId).catch(() => undefined);
    };
    let counted: Awaited<typeof hit>;
    try {
      counted = await hit;
    } catch (err) {
      await giveBack();
      throw err;
    }
    if (!counted.allowed) {
      await giveBack();
      return rateLimited(counted);
    }
    if (!(await claim)) {
      logger.info(`duplicate delivery ${deliveryId} on route '${route.name}' skipped`, { route: route.name, delivery_id: deliveryId });
      return { status: 200, body: { status: 'duplicate', delivery_id: deliveryId } };
    }

    // 7. Event filter.
    const event = readEventType(req.headers, payload);
    if (!eventAccepted(route.events, event)) {
      logger.info(`event '${event || '(none)'}' ignored by route '${route.name}' (accepts: ${route.events.join(', ')})`, { route: route.name, event, delivery_id: deliveryId });
      return { status: 200, body: { status: 'ignored', event } };
    }

    // 8. Enqueue; the sender never waits for the agent.
    try {
      if (await this.overBackpressureLimit()) {
        await store.deliveryIds.release(route.name, deliveryId);
        logger.warn(`backpressure: more than ${limits.maxPending} pending jobs, event on route '${route.name}' answered 503`);
        return fail('HW_E_BACKPRESSURE', undefined, { 'Retry-After': '30' });
      }
      // The JSON text as received goes along, so a durable store does not serialise the payload again.
      await store.jobs.enqueue({ route: route.name, event, deliveryId, payload, receivedAt: Date.now() }, { payloadJson: parsed!.json });
      this.pending.added += 1;
    } catch (err) {
      // Nothing was accepted: forget the id so that the sender's retry is not taken for a duplicate.
      await store.deliveryIds.release(route.name, deliveryId).catch(() => undefined);
      logger.error(`could not enqueue event on route '${route.name}': ${errorMessage(err)}`);
      return fail('HW_E_INTERNAL', 'Could not store the event, retry later', { 'Retry-After': '5' });
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
