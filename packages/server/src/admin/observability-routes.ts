// Mounts what `metrics:` and `admin:` turn on: GET /metrics, the admin API under /api and the dashboard under /ui.
// The API and the dashboard share one AdminAuth (admin token or loopback) and the same reads and actions.
import { join } from 'node:path';
import type { Express, NextFunction, Request, Response } from 'express';
import { errorMessage, type Job } from '@hookwise/core';
import { adminApiEnabled, hostedMetricsText, replayJob, retryDeadLetters, DEFAULT_USAGE_PERIOD, parseSince } from '@hookwise/gateway';
import type { HostedProfiles } from '../hosted-profiles';
import { AdminAuth } from './admin-auth';
import { parseFilters, summary } from './admin-data';
import { HostedData, type Selection } from './hosted-data';
import { ChangeStream } from './change-stream';
import { mountTrialApi } from './trial-routes';
import { mountApprovalApi } from './approval-routes';
import { mountRunApi } from './run-routes';
import { mountMcp } from './mcp-routes';
import { mcpOverview } from './mcp-overview';
import { adminClientOf, ClientFailures } from './client-failures';
import { loginPage, page, refusedPage } from './dashboard-html';
import { UI_HEADERS, mountDashboard } from './dashboard-routes';

/** Signed-out dashboard sessions, in the config dir (hidden from agents), so that a restart does not revive them. */
const REVOKED_SESSIONS_FILE = 'admin_sessions_revoked.json';

export function mountObservability(app: Express, hosted: HostedProfiles): void {
  const { gateway, observability } = hosted.main;
  const config = gateway.config;
  // One answer for every profile's registry: each labels its series with its profile.
  const registries = hosted.all.flatMap((one) => (one.observability?.metrics ? [one.observability.metrics] : []));
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
      hostedMetricsText(registries)
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
  const data = new HostedData(hosted);
  const stream = new ChangeStream(hosted.all.map((one) => one.gateway));
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
  // `?profile=<name>` selects one profile (`default`: the config dir's own) on every endpoint; without it, lists
  // merge every profile and a job is looked up in each.
  api.use((req, res, next) => {
    const chosen = data.select(req.query.profile);
    if ('problem' in chosen) {
      res.status(404).json({ error: chosen.problem });
      return;
    }
    res.locals.selected = chosen.selected;
    next();
  });
  const selectedOf = (res: Response): Selection => res.locals.selected as Selection;
  const wrap = (handler: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, _next: NextFunction) => {
    handler(req, res).catch((err: unknown) => {
      gateway.logger.error(`admin API ${req.method} ${req.path} failed: ${errorMessage(err)}`);
      if (!res.headersSent) res.status(503).json({ error: `the store could not answer: ${errorMessage(err)}` });
    });
  };
  /** The job `:id` names in the selected profiles, with its profile's data; answers 404 itself when none has it. */
  const found = async (req: Request, res: Response) => {
    const hit = await data.find(selectedOf(res), String(req.params.id));
    if (!hit) res.status(404).json({ error: `no delivery '${String(req.params.id)}' (done jobs are kept for 7 days)` });
    return hit;
  };
  const withProfile = (job: Job, profile: string) => ({ ...job, profile });

  api.get('/', (_req, res) => {
    res.json({
      endpoints: [
        'every endpoint takes ?profile=<name> (default: the config dir itself); without it, every profile',
        'GET /api/deliveries?status=&route=&event=&limit=&full=1',
        'GET /api/deliveries/:id',
        'POST /api/deliveries/:id/replay',
        'POST /api/deliveries/:id/retry',
        'POST /api/dead-letters/retry?route=',
        'POST /api/routes/:route/run {payload}',
        'GET /api/stats',
        'GET /api/usage?since=&route=&stored=0',
        'GET /api/requests',
        'GET /api/stream (server-sent events: what changed, in the selected profiles)',
        'GET /api/mcp (MCP Events clients and subscriptions; the default profile)',
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
      const selected = selectedOf(res);
      res.json({
        deliveries:
          req.query.full === '1'
            ? await data.listFull(selected, parsed.filters)
            : (await data.list(selected, parsed.filters)).map((job) => ({ ...summary(job), profile: job.profile })),
      });
    }),
  );
  api.get(
    '/deliveries/:id',
    wrap(async (req, res) => {
      const hit = await found(req, res);
      if (!hit) return;
      const { job, data: of } = hit;
      // The conversation the job is part of, from the records: what `deliveries show` prints.
      res.json({
        delivery: withProfile(job, of.gateway.profile),
        activity: of.journal?.job(job.id) ?? null,
        conversation: (await of.conversation(job)) ?? null,
      });
    }),
  );
  api.post(
    '/deliveries/:id/replay',
    wrap(async (req, res) => {
      const hit = await found(req, res);
      if (!hit) return;
      const { job } = hit;
      const owner = hit.data.gateway;
      const copy = await replayJob(owner.store.jobs, job);
      owner.logger.info(`replaying ${job.deliveryId} on route '${job.route}' as ${copy.deliveryId} (admin API)`, {
        route: job.route,
        delivery_id: copy.deliveryId,
      });
      owner.workers.pump();
      res.status(201).json({ replayed: job.deliveryId, delivery: { ...summary(copy), profile: owner.profile } });
    }),
  );
  api.post(
    '/deliveries/:id/retry',
    wrap(async (req, res) => {
      const hit = await found(req, res);
      if (!hit) return;
      const { job } = hit;
      const owner = hit.data.gateway;
      if (!(await owner.store.jobs.retryDead(job.id))) {
        res
          .status(409)
          .json({ error: `delivery '${job.deliveryId}' is ${job.status}, not a dead letter: only dead letters are retried (replay runs any event again)` });
        return;
      }
      owner.logger.info(`dead letter ${job.deliveryId} on route '${job.route}' put back in the queue (admin API)`, {
        route: job.route,
        delivery_id: job.deliveryId,
      });
      owner.workers.pump();
      const after = await hit.data.find(job.id);
      res.json({ retried: job.deliveryId, delivery: after ? { ...summary(after), profile: owner.profile } : null });
    }),
  );
  api.post(
    '/dead-letters/retry',
    wrap(async (req, res) => {
      const route = typeof req.query.route === 'string' && req.query.route !== '' ? req.query.route : undefined;
      const retried: string[] = [];
      for (const { gateway: owner } of selectedOf(res)) {
        const ids = await retryDeadLetters(owner.store.jobs, route);
        if (ids.length) owner.logger.info(`${ids.length} dead letter(s) put back in the queue (admin API)`);
        owner.workers.pump();
        retried.push(...ids);
      }
      res.json({ retried });
    }),
  );
  api.get(
    '/stats',
    wrap(async (_req, res) => {
      const selected = selectedOf(res);
      const routes = data.routes(selected);
      res.json({
        queue: await data.queue(selected),
        // Names, as before profiles; `profiles` says whose each is when profiles are hosted.
        routes: routes.map((route) => route.name),
        ...(hosted.several ? { profiles: hosted.names(), routesByProfile: routes } : {}),
        minutes: data.series(selected) ?? [],
      });
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
      res.json({ usage: await data.usage(selectedOf(res), since, route, { stored: req.query.stored !== '0' }) });
    }),
  );
  api.get('/requests', (_req, res) => {
    res.json({ requests: data.recentRequests(selectedOf(res)) });
  });
  api.get('/stream', (_req, res) =>
    stream.attach(
      res,
      selectedOf(res).map((one) => one.gateway),
    ),
  );
  api.get(
    '/mcp',
    wrap(async (_req, res) => {
      res.json(await mcpOverview(gateway));
    }),
  );
  mountTrialApi(api, selectedOf);
  mountApprovalApi(api, selectedOf);
  mountRunApi(api, selectedOf, data.main);
  app.use('/api', api);
  // The MCP Events server, for the clients of mcp.clients (their own tokens, not the admin token). It serves the
  // default profile's routes only: `mcp:` is set for the whole process, and its clients name event types, not profiles.
  if (gateway.features.mcpEvents.enabled) mountMcp(app, express, gateway);

  if (config.admin?.ui) mountDashboard(app, express, { gateway, auth, data, guard });
}
