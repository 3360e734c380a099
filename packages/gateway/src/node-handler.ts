// Adapts the pipeline to node:http (and so to Express, whose req/res extend node's).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'winston';
import { errorMessage } from '@hookwise/core';
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
    const route = routeFromUrl(req.url) ?? '';
    pipeline
      .handle({ route, headers: req.headers, body: req, url: req.url })
      .then((result) => sendResult(res, result, !req.readableEnded && !req.complete))
      .catch((err: unknown) => {
        logger.error(`webhook handling failed on route '${route}': ${errorMessage(err)}`);
        if (!res.headersSent) sendResult(res, { status: 500, body: { error: 'Internal error' } }, true);
      });
  };
}
