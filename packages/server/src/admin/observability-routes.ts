// Mounts what `metrics:` and `admin:` turn on: GET /metrics, the admin API under /api and the dashboard under /ui.
// The API and the dashboard share one AdminAuth (admin token or loopback) and the same reads and actions.
import { join } from 'node:path';
import type { Express, NextFunction, Request, Response } from 'express';
import { errorMessage, type Job } from '@hookwise/core';
import { adminApiEnabled, replayJob, retryDeadLetters, type Gateway, type GatewayObservability, DEFAULT_USAGE_PERIOD, parseSince } from '@hookwise/gateway';
import { AdminAuth } from './admin-auth';
import { AdminData, parseFilters, summary } from './admin-data';
import { ChangeStream } from './change-stream';
import { mountTrialApi } from './trial-routes';
import { mountApprovalApi } from './approval-routes';
import { mountRunApi } from './run-routes';
import { mountMcp } from './mcp-routes';
import { adminClientOf, ClientFailures } from './client-failures';
import { loginPage, page, refusedPage } from './dashboard-html';
import { UI_HEADERS, mountDashboard } from './dashboard-routes';

/** Signed-out dashboard sessions, in the config dir (hidden from agents), so that a restart does not revive them. */
const REVOKED_SESSIONS_FILE = 'admin_sessions_revoked.json';

export function mountObservability(app: Express, gateway: Gateway, observability: GatewayObservability | undefined): void {
  const config = gateway.config;
  const metrics = observability?.metrics;
  if (metrics) {
    const token = config.metrics?.token;
    const auth = token === undefined ? undefined : new AdminAuth(token);
    app.get('/metrics', (req, res, next) => {
      const granted = auth?.check(req);
      if (granted && (!granted.ok || granted.via !== 'token')) {
        res
          .status(401)
          .set('www-authenticate', 'Bearer realm="hookwise-metrics"')
          .type('text/plain')
          .send('metrics.token is set: send Authorization: Bearer <metrics.token>\n');
        return;
      }
      metrics
        .text()
        .then((text) => res.status(200).set('content-type', metrics.contentType).set('cache-control', 'no-store').send(text))
        .catch(next);
    });
  }
  if (!adminApiEnabled(config)) {
    if (gateway.features.mcpEvents.enabled) gateway.logger.warn('mcp.clients is set but admin.enabled is not: POST /mcp is not served');
    return;
  }

  const express = require('express') as typeof import('express');
  const auth = new AdminAuth(config.admin?.token, Date.now, join(gateway.options.configDir, REVOKED_SESSIONS_FILE));
  const data = new AdminData(gateway, observability?.journal);
  const stream = new ChangeStream(gateway);
  // Wrong bearer tokens, per client address: a client over the limit is answered 429 whatever it sends next.
  const bearerFailures = new ClientFailures();

  /** Checks access (and, for actions, the CSRF rule); answers itself when refused. */
  const guard = (answer: 'json' | 'html') => (req: Request, res: Response, next: NextFunction) => {
    const client = adminClientOf(req);
    const bearer = req.headers.authorization !== undefined;
    const wait = bearer ? bearerFailures.blockedFor(client) : undefined;
    if (wait !== undefined) {
      res
        .status(429)
        .set('retry-after', String(wait))
        .json({ error: `too many wrong admin tokens from this address; try again in ${wait} s` });
      return;
    }
    const access = auth.check(req);
    if (!access.ok) {
      if (bearer && access.status === 401) bearerFailures.failed(client);
      if (answer === 'json') res.status(access.status).json({ error: access.message });
      else if (access.status === 401)
        res
          .status(401)
          .set(UI_HEADERS)
          .type('html')
          .send(page({ title: 'Sign in', kind: 'login', body: loginPage() }));
      else
        res
          .status(403)
          .set(UI_HEADERS)
          .type('html')
          .send(page({ title: 'Not allowed', kind: 'refused', body: refusedPage(access.message) }));
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD' && !auth.checkCsrf(req, access)) {
      res.status(403).json({
        error: 'this action needs the X-Hookwise-CSRF header of the dashboard page (or Authorization: Bearer <admin.token>) and a same-origin request',
      });
      return;
    }
    res.locals.access = access;
    next();
  };
  const api = express.Router();
  api.use(guard('json'));
  api.use((_req, res, next) => {
    res.set('cache-control', 'no-store');
    next();
  });
  const wrap = (handler: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, _next: NextFunction) => {
    handler(req, res).catch((err: unknown) => {
      gateway.logger.error(`admin API ${req.method} ${req.path} failed: ${errorMessage(err)}`);
      if (!res.headersSent) res.status(503).json({ error: `the store could not answer: ${errorMessage(err)}` });
    });
  };
  const found = async (req: Request, res: Response): Promise<Job | undefined> => {
    const job = await data.find(String(req.params.id));
    if (!job) res.status(404).json({ error: `no delivery '${String(req.params.id)}' (done jobs are kept for 7 days)` });
    return job;
  };

  api.get('/', (_req, res) => {
    res.json({
      endpoints: [
        'GET /api/deliveries?status=&route=&event=&limit=&full=1',
        'GET /api/deliveries/:id',
        'POST /api/deliveries/:id/replay',
        'POST /api/deliveries/:id/retry',
        'POST /api/dead-letters/retry?route=',
        'POST /api/routes/:route/run {payload}',
        'GET /api/stats',
        'GET /api/usage?since=&route=&stored=0',
        'GET /api/requests',
        'GET /api/stream (server-sent events)',
      ],
    });
  });
  api.get(
    '/deliveries',
    wrap(async (req, res) => {
      const parsed = parseFilters(req.query as Record<string, unknown>);
      if ('problem' in parsed) {
        res.status(400).json({ error: parsed.problem });
        return;
      }
      // full=1: whole jobs (payload, prompt, answer), as `hookwise deliveries list --json` prints them; else no payload is read.
      res.json({ deliveries: req.query.full === '1' ? await data.listFull(parsed.filters) : (await data.list(parsed.filters)).map(summary) });
    }),
  );
  api.get(
    '/deliveries/:id',
    wrap(async (req, res) => {
      const job = await found(req, res);
      // The conversation the job is part of, from the records: what `deliveries show` prints.
      if (job) res.json({ delivery: job, activity: data.journal?.job(job.id) ?? null, conversation: (await data.conversation(job)) ?? null });
    }),
  );
  api.post(
    '/deliveries/:id/replay',
    wrap(async (req, res) => {
      const job = await found(req, res);
      if (!job) return;
      const copy = await replayJob(gateway.store.jobs, job);
      gateway.logger.info(`replaying ${job.deliveryId} on route '${job.route}' as ${copy.deliveryId} (admin API)`, {
        route: job.route,
        delivery_id: copy.deliveryId,
      });
      gateway.workers.pump();
      res.status(201).json({ replayed: job.deliveryId, delivery: summary(copy) });
    }),
  );
  api.post(
    '/deliveries/:id/retry',
    wrap(async (req, res) => {
      const job = await found(req, res);
      if (!job) return;
      if (!(await gateway.store.jobs.retryDead(job.id))) {
        res
          .status(409)
          .json({ error: `delivery '${job.deliveryId}' is ${job.status}, not a dead letter: only dead letters are retried (replay runs any event again)` });
        return;
      }
      gateway.logger.info(`dead letter ${job.deliveryId} on route '${job.route}' put back in the queue (admin API)`, {
        route: job.route,
        delivery_id: job.deliveryId,
      });
      gateway.workers.pump();
      const after = await data.find(job.id);
      res.json({ retried: job.deliveryId, delivery: after ? summary(after) : null });
    }),
  );
  api.post(
    '/dead-letters/retry',
    wrap(async (req, res) => {
      const route = typeof req.query.route === 'string' && req.query.route !== '' ? req.query.route : undefined;
      const retried = await retryDeadLetters(gateway.store.jobs, route);
      if (retried.length) gateway.logger.info(`${retried.length} dead letter(s) put back in the queue (admin API)`);
      gateway.workers.pump();
      res.json({ retried });
    }),
  );
  api.get(
    '/stats',
    wrap(async (_req, res) => {
      res.json({ queue: await data.queue(), routes: data.routes(), minutes: data.journal?.series(30) ?? [] });
    }),
  );
  api.get(
    '/usage',
    wrap(async (req, res) => {
      const since = parseSince(typeof req.query.since === 'string' && req.query.since !== '' ? req.query.since : DEFAULT_USAGE_PERIOD);
      if (typeof since !== 'number') {
        res.status(400).json({ error: since.problem });
        return;
      }
      const route = typeof req.query.route === 'string' && req.query.route !== '' ? req.query.route : undefined;
      // stored=0: the budget counters only, without reading the stored jobs (`hookwise routes list`).
      res.json({ usage: await data.usage(since, route, { stored: req.query.stored !== '0' }) });
    }),
  );
  api.get('/requests', (_req, res) => {
    res.json({ requests: data.journal?.recentRequests() ?? [] });
  });
  api.get('/stream', (_req, res) => stream.attach(res));
  mountTrialApi(api, gateway);
  mountApprovalApi(api, gateway);
  mountRunApi(api, gateway);
  app.use('/api', api);
  // The MCP Events server, for the clients of mcp.clients (their own tokens, not the admin token).
  if (gateway.features.mcpEvents.enabled) mountMcp(app, express, gateway);

  if (config.admin?.ui) mountDashboard(app, express, { gateway, auth, data, guard });
}
