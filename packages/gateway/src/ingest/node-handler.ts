// Adapts the pipeline to node:http (and so to Express, whose req/res extend node's). The request path is checked
// here for every way a webhook comes in: by the handler itself when a host mounts it, or by the ingest listener
// in front of a host app (the server package), which then hands the handler the route name it found.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'winston';
import { ERROR_CATALOGUE, errorMessage } from '@hookwise/core';
import type { WebhookPipeline } from './pipeline';
import type { IngestRequest, IngestResult } from './pipeline-contract';
import { rejectionReason } from './rejection-reason';
import { hasMalformedPath, MALFORMED_PATH_RESULT, otherWebhookRequest, profileUrl, routeFromUrl, type OtherWebhookRequest } from './request-path';

export function sendResult(res: ServerResponse, result: IngestResult, closeConnection = false): void {
  const body = typeof result.body === 'string' ? result.body : JSON.stringify(result.body);
  const headers: Record<string, string | number> = {
    'content-type': result.contentType ?? 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  };
  // Most answers (every 202) have no headers of their own: no spread of an empty object for them.
  if (result.headers) Object.assign(headers, result.headers);
  // A body we did not read must not be drained from a keep-alive connection: close it instead.
  if (closeConnection) headers.connection = 'close';
  res.writeHead(result.status, headers);
  res.end(body);
}

export interface WebhookHandler {
  /** Checks the path (400 when it does not decode), reads the route name from `/webhooks/<name>`, runs the pipeline. */
  (req: IncomingMessage, res: ServerResponse): void;
  /**
   * Runs the pipeline for a request whose path was checked already (createIngestListener checks every request):
   * `route` is the name routeFromUrl found, else it is read from the URL here. Not a connect-style middleware:
   * Express's `next` must not reach `route`.
   */
  readonly ingest: (req: IncomingMessage, res: ServerResponse, route?: string) => void;
  /**
   * A request besides `POST /webhooks/<name>` (otherWebhookRequest): run by the pipeline when the route's pinned
   * source takes it (Source.requests), else handed to `fallback` (the host's own 404/405) untouched.
   */
  readonly ingestOther: (req: IncomingMessage, res: ServerResponse, target: OtherWebhookRequest, fallback: () => void) => void;
  /** From now on, keep on each answered response what the pipeline decided (decisionOf): the access log asks. */
  readonly recordDecisions: () => void;
  /**
   * What the pipeline decided about the request `res` answers, once recordDecisions was called: accepted,
   * duplicate or ignored with the event's route, type and delivery id; `rejected:<reason>` with the route asked
   * for; undefined for a request the pipeline did not answer.
   */
  readonly decisionOf: (res: ServerResponse) => AccessDecision | undefined;
}

export interface AccessDecision {
  outcome: string;
  route?: string;
  event?: string;
  deliveryId?: string;
}

/** Where a response keeps its decision: a property of its own, read once at 'finish'. */
const DECISION = Symbol('hookwise.ingest-decision');
type DecidedResponse = ServerResponse & { [DECISION]?: AccessDecision };

function decisionFrom(request: IngestRequest, result: IngestResult): AccessDecision | undefined {
  if (request.decided) return request.decided;
  return result.status >= 400 ? { outcome: `rejected:${rejectionReason(result)}`, route: request.route } : undefined;
}

/** `(req, res)` handler for `POST /webhooks/:route`, usable with node:http, Express or any connect-style host. */
export function createWebhookHandler(pipeline: WebhookPipeline, logger: Logger): WebhookHandler {
  // Off unless an access log asks. The decision is read from the request the pipeline was given, not from
  // lifecycle events built for the access log (an event object, a listener and a WeakMap entry per request).
  let recording = false;
  const ingest = (req: IncomingMessage, res: ServerResponse, route = routeFromUrl(req.url) ?? ''): void => {
    const failed = (err: unknown): void => {
      // A bug, not a sender's mistake: every expected failure (store included) has its own answer.
      logger.error(`webhook handling failed on route '${route}': ${errorMessage(err)}`);
      if (!res.headersSent) sendResult(res, { status: ERROR_CATALOGUE.HW_E_INTERNAL.status, body: { error: ERROR_CATALOGUE.HW_E_INTERNAL.message } }, true);
    };
    // One promise reaction per request instead of a then() and a catch(); a throw while answering still fails.
    const request: IngestRequest = {
      route,
      headers: req.headers,
      body: req,
      url: req.url,
      remoteAddress: req.socket?.remoteAddress,
      method: req.method,
      decided: undefined,
    };
    pipeline.handle(request).then((result) => {
      try {
        if (recording) (res as DecidedResponse)[DECISION] = decisionFrom(request, result);
        sendResult(res, result, !req.readableEnded && !req.complete);
      } catch (err) {
        failed(err);
      }
    }, failed);
  };
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    if (hasMalformedPath(req.url)) sendResult(res, MALFORMED_PATH_RESULT, true);
    else ingest(req, res);
  };
  const ingestOther = (req: IncomingMessage, res: ServerResponse, target: OtherWebhookRequest, fallback: () => void): void => {
    pipeline.takes(target.route, req.method ?? '', target.subPath).then(
      (takes) => (takes ? ingest(req, res, target.route) : fallback()),
      (err: unknown) => {
        logger.error(`webhook handling failed on route '${target.route}': ${errorMessage(err)}`);
        fallback();
      },
    );
  };
  const recordDecisions = (): void => {
    recording = true;
  };
  const decisionOf = (res: ServerResponse): AccessDecision | undefined => (res as DecidedResponse)[DECISION];
  return Object.assign(handler, { ingest, ingestOther, recordDecisions, decisionOf });
}

/**
 * The node:http listener of a server that serves webhooks beside another app (the server package's Express
 * app), and the one place its request paths are checked: any method, any path that does not decode is answered
 * 400 here, before a router whose decoding would throw. With `direct`, `POST /webhooks/<name>` then goes
 * straight to the pipeline (Express's router costs more per request than the pipeline, docs/performance.md) and
 * everything else to `app`; without, everything goes to `app`, whose webhook route calls `handler.ingest`.
 */
export function createIngestListener(
  handler: WebhookHandler,
  app: RequestListener,
  direct: boolean,
  profiles?: (name: string) => WebhookHandler | undefined,
): RequestListener {
  return (req, res) => {
    if (hasMalformedPath(req.url)) return sendResult(res, MALFORMED_PATH_RESULT, true);
    // `/p/<name>/webhooks/...`: the profile's own handler, with the URL below the prefix read for the route (the
    // request keeps its whole URL: a source that signs the URL signed that one).
    const prefixed = profiles ? profileUrl(req.url) : undefined;
    let target = handler;
    let url = req.url;
    if (prefixed) {
      const hosted = profiles!(prefixed.profile);
      if (!hosted) return sendResult(res, unknownProfile(prefixed.profile), true);
      target = hosted;
      url = prefixed.rest;
    }
    const route = direct && req.method === 'POST' ? routeFromUrl(url) : undefined;
    if (route !== undefined) return target.ingest(req, res, route);
    // Other methods and paths below a route reach a source that takes them (WhatsApp's GET verification, Matrix's
    // PUT transactions); anything else (odd spellings included) keeps the app's behaviour.
    const other = otherWebhookRequest(req.method, url);
    if (other === undefined) app(req, res);
    else target.ingestOther(req, res, other, () => app(req, res));
  };
}

/** The answer to `/p/<name>/webhooks/...` for a profile the host does not serve. */
export function unknownProfile(name: string): IngestResult {
  return {
    status: 404,
    body: { error: `no profile '${name}' on this gateway: a profile is served when <config_dir>/profiles/${name}/ exists at startup` },
  };
}
