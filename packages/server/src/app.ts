// The Express app: health, the webhook route (served by the gateway's framework-neutral handler) and JSON errors.
import type { RequestListener } from 'node:http';
// Types only at the top: Express (~140 modules) is loaded by createApp, so that the CLI commands that use this
// package for its store, plugin list or skill dirs do not pay for it on every start.
import type { Express, NextFunction, Request, Response } from 'express';
import { mountObservability } from './admin/observability-routes';
import { createIngestListener } from '@hookwise/gateway';
import type { HostedProfiles } from './hosted-profiles';

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
export function createApp(hosted: HostedProfiles): Express {
  const express = require('express') as typeof import('express');
  const gateway = hosted.main.gateway;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // From memory only: the stores' state as the gateways' own calls last found it, so /health answers at once
  // even while a store is locked or unreachable. The SPEC's body while healthy; 503 with the reason when any
  // profile's store is not (each profile has a store of its own).
  app.get('/health', (_req, res) => {
    const reasons = hosted.all.flatMap(({ name, gateway: one }) => {
      const store = one.storeHealth();
      if (store.ok) return [];
      return [hosted.several ? `profile '${name}': ${store.reason ?? 'store unavailable'}` : store.reason];
    });
    if (reasons.length === 0) res.json({ status: 'ok', platform: 'webhook' });
    else res.status(503).json({ status: 'degraded', platform: 'webhook', reason: reasons.join('; ') });
  });
  // /metrics, /api and /ui, as far as metrics: and admin: turn them on (admin/observability-routes.ts).
  mountObservability(app, hosted);
  // No body parser: the sources need the exact bytes, and the pipeline reads them with the size limit. The path
  // was checked by the listener (createRequestListener), so the handler's own check is skipped.
  app.post('/webhooks/:route', (req, res) => gateway.handler.ingest(req, res));
  // A profile's routes; an unknown profile was answered 404 by the ingest listener already.
  app.post('/p/:profile/webhooks/:route', (req, res, next) => {
    const handler = hosted.handlerOf(String(req.params.profile));
    if (handler) handler.ingest(req, res, String(req.params.route));
    else next();
  });
  app.all(['/webhooks/:route', '/p/:profile/webhooks/:route'], (req, res) => {
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
export function createRequestListener(hosted: HostedProfiles, app: Express, ingest: IngestPath = 'direct'): RequestListener {
  return createIngestListener(hosted.main.gateway.handler, app, ingest === 'direct', hosted.handlerOf);
}
