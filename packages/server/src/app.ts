// The Express app: health, the webhook route (served by the core's framework-neutral handler) and JSON errors.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Gateway } from '@hookwise/core';

export function createApp(gateway: Gateway): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok', platform: 'webhook' });
  });
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
