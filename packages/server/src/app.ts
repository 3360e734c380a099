// The Express app: health, the webhook route (served by the core's framework-neutral handler) and JSON errors.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
// Types only at the top: Express (~140 modules) is loaded by createApp, so that the CLI commands that use this
// package for its store, plugin list or skill dirs do not pay for it on every start.
import type { Express, NextFunction, Request, Response } from 'express';
import type { GatewayObservability } from '@hookwise/gateway';
import { mountObservability } from './admin/observability-routes';
import { routeFromUrl, type Gateway } from '@hookwise/gateway';

/**
 * How `POST /webhooks/<route>` reaches the pipeline. 'direct' (the default): the core's node:http handler takes
 * it before Express's router, which costs more per request than the whole pipeline (docs/performance.md);
 * 'express': through the Express route below. Both run the same handler; everything else is Express's.
 */
export type IngestPath = 'direct' | 'express';

export function createApp(gateway: Gateway, observability?: GatewayObservability): Express {
  const express = require('express') as typeof import('express');
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok', platform: 'webhook' });
  });
  // /metrics, /api and /ui, as far as metrics: and admin: turn them on (admin/observability-routes.ts).
  mountObservability(app, gateway, observability);
  // No body parser: the verifiers need the exact bytes, and the core reads them with the size limit.
  app.post('/webhooks/:route', (req, res) => gateway.handler(req, res));
  app.all('/webhooks/:route', (req, res) => {
    res.status(405).set('Allow', 'POST').json({ error: `Method ${req.method} not allowed: send webhooks with POST` });
  });
  app.use((req, res) => {
    res.status(404).json({ error: `Not found: ${req.method} ${req.path}` });
  });
  app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => {
    gateway.logger.error(`request failed: ${err.message}`);
    if (!res.headersSent) res.status(500).json({ error: 'Internal error' });
  });
  return app;
}

/** The http.Server listener: webhook POSTs straight to the core's handler (unless `ingest` is 'express'), the rest to Express. */
export function createRequestListener(gateway: Gateway, app: Express, ingest: IngestPath = 'direct'): RequestListener {
  if (ingest === 'express') return app;
  return (req: IncomingMessage, res: ServerResponse) => {
    // Anything the pattern does not take (other methods, odd spellings) keeps Express's behaviour.
    if (req.method === 'POST' && routeFromUrl(req.url) !== undefined) gateway.handler(req, res);
    else app(req, res);
  };
}
