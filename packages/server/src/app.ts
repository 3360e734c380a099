// The Express app: health, the webhook route (served by the gateway's framework-neutral handler) and JSON errors.
import type { RequestListener } from 'node:http';
// Types only at the top: Express (~140 modules) is loaded by createApp, so that the CLI commands that use this
// package for its store, plugin list or skill dirs do not pay for it on every start.
import type { Express, NextFunction, Request, Response } from 'express';
import type { GatewayObservability } from '@hookwise/gateway';
import { mountObservability } from './admin/observability-routes';
import { createIngestListener, type Gateway } from '@hookwise/gateway';

/**
 * How `POST /webhooks/<route>` reaches the pipeline. 'direct' (the default): the gateway's node:http handler takes
 * it before Express's router, which costs more per request than the whole pipeline (docs/performance.md);
 * 'express': through the Express route below. Both run the same handler; everything else is Express's.
 */
export type IngestPath = 'direct' | 'express';

/**
 * Serve it with createRequestListener: that checks every request's path before Express's router sees it (a path
 * that does not decode is answered 400 there), so the app does not check again.
 */
export function createApp(gateway: Gateway, observability?: GatewayObservability): Express {
  const express = require('express') as typeof import('express');
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // From memory only: the store's state as the gateway's own calls last found it, so /health answers at once
  // even while the store is locked or unreachable. The SPEC's body while healthy; 503 with the reason when not.
  app.get('/health', (_req, res) => {
    const store = gateway.storeHealth();
    if (store.ok) res.json({ status: 'ok', platform: 'webhook' });
    else res.status(503).json({ status: 'degraded', platform: 'webhook', reason: store.reason });
  });
  // /metrics, /api and /ui, as far as metrics: and admin: turn them on (admin/observability-routes.ts).
  mountObservability(app, gateway, observability);
  // No body parser: the sources need the exact bytes, and the pipeline reads them with the size limit. The path
  // was checked by the listener (createRequestListener), so the handler's own check is skipped.
  app.post('/webhooks/:route', (req, res) => gateway.handler.ingest(req, res));
  app.all('/webhooks/:route', (req, res) => {
    res
      .status(405)
      .set('Allow', 'POST')
      .json({ error: `Method ${req.method} not allowed: send webhooks with POST` });
  });
  app.use((req, res) => {
    res.status(404).json({ error: `Not found: ${req.method} ${req.path}` });
  });
  app.use((err: Error & { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    // Express marks what the client got wrong (a path that does not decode, ...) with a 4xx status.
    if (typeof err.status === 'number' && err.status >= 400 && err.status < 500) {
      if (!res.headersSent) res.status(err.status).json({ error: err.status === 400 ? 'Bad request' : err.message });
      return;
    }
    gateway.logger.error(`request failed: ${err.message}`);
    if (!res.headersSent) res.status(500).json({ error: 'Internal error' });
  });
  return app;
}

/**
 * The http.Server listener: the request path checked once (the gateway's ingest listener), then webhook POSTs
 * straight to the gateway's handler (unless `ingest` is 'express'), the rest to Express.
 */
export function createRequestListener(gateway: Gateway, app: Express, ingest: IngestPath = 'direct'): RequestListener {
  return createIngestListener(gateway.handler, app, ingest === 'direct');
}
