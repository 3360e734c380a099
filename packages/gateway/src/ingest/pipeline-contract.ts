// What the webhook pipeline is given and what it answers: the request, the result, its limits and its dependencies.
// Every ingest step takes these types, so they live apart from the steps and from the orchestrator (pipeline.ts).
import type { HeaderMap, Source, Store } from '@hookwise/core';
import type { Logger } from 'winston';
import type { AuthFailureThrottle } from './auth-throttle';
import type { TrustedProxies } from './client-address';
import type { Lifecycle } from '../observe/lifecycle';
import type { Route, RouteTable } from '../routes/routes';
import type { StoreStatus } from '../observe/store-status';

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
  /** The HTTP method; absent means POST. Another one reaches here only for a source that takes it (Source.requests). */
  method?: string;
  /**
   * Set by the pipeline once it has decided an event (accepted, duplicate, ignored): what the access log writes.
   * A refusal leaves it unset; its answer says why (rejectionReason).
   */
  decided?: IngestDecision;
}

/** What the pipeline decided about an event, as the access log writes it. */
export interface IngestDecision {
  outcome: 'accepted' | 'duplicate' | 'ignored';
  route: string;
  event: string;
  deliveryId: string;
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
   * The sources a route accepts: the one it pins (`source:`), or, for a route that pins none, the default sources
   * (GatewayOptions.defaultSources) in the order their event and delivery headers are read.
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
