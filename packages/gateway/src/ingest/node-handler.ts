// Adapts the pipeline to node:http (and so to Express, whose req/res extend node's).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'winston';
import { ERROR_CATALOGUE, errorMessage } from '@hookwise/core';
import type { IngestResult, WebhookPipeline } from './pipeline';

const WEBHOOK_PATH = /^\/webhooks\/([^/?#]+)\/?(?:[?#].*)?$/;

/** The route name of a `/webhooks/<name>` URL, or undefined. */
export function routeFromUrl(url: string | undefined): string | undefined {
  const match = WEBHOOK_PATH.exec(url ?? '');
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

/**
 * True when the path of `url` (the part before `?`) has a `%` not followed by two hex digits, or escapes that
 * are not UTF-8: such a request is answered 400, never passed to a router whose decoding would throw (500).
 */
export function hasMalformedPath(url: string | undefined): boolean {
  if (!url || !url.includes('%')) return false;
  const end = url.search(/[?#]/);
  const path = end === -1 ? url : url.slice(0, end);
  if (!path.includes('%')) return false;
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}

/** The answer to a request whose path does not decode. */
export const MALFORMED_PATH_RESULT: IngestResult = { status: 400, body: { error: 'Malformed percent-encoding in the request path' } };

export function sendResult(res: ServerResponse, result: IngestResult, closeConnection = false): void {
  const body = typeof result.body === 'string' ? result.body : JSON.stringify(result.body);
  const headers: Record<string, string | number> = {
    'content-type': result.contentType ?? 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...(result.headers ?? {}),
  };
  // A body we did not read must not be drained from a keep-alive connection: close it instead.
  if (closeConnection) headers.connection = 'close';
  res.writeHead(result.status, headers);
  res.end(body);
}

/** `(req, res)` handler for `POST /webhooks/:route`, usable with node:http, Express or any connect-style host. */
export function createWebhookHandler(pipeline: WebhookPipeline, logger: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (hasMalformedPath(req.url)) {
      sendResult(res, MALFORMED_PATH_RESULT, true);
      return;
    }
    const route = routeFromUrl(req.url) ?? '';
    pipeline
      .handle({ route, headers: req.headers, body: req, url: req.url, remoteAddress: req.socket?.remoteAddress })
      .then((result) => sendResult(res, result, !req.readableEnded && !req.complete))
      .catch((err: unknown) => {
        // A bug, not a sender's mistake: every expected failure (store included) has its own answer.
        logger.error(`webhook handling failed on route '${route}': ${errorMessage(err)}`);
        if (!res.headersSent) sendResult(res, { status: ERROR_CATALOGUE.HW_E_INTERNAL.status, body: { error: ERROR_CATALOGUE.HW_E_INTERNAL.message } }, true);
      });
  };
}
