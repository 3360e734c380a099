// The dashboard's routes (/ui): its assets, pages and the fragments its script refreshes, behind the admin
// session; mounted by observability-routes.ts when admin.ui is on.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import type { Express, NextFunction, Request, Response } from 'express';
import { errorMessage } from '@hookwise/core';
import { type Gateway } from '@hookwise/gateway';
import { AdminAuth, SESSION_COOKIE, type AdminAccess } from './admin-auth';
import { parseFilters } from './admin-data';
import type { HostedData, Selection } from './hosted-data';
import { mountTrialPages } from './trial-routes';
import { mountApprovalPages } from './approval-routes';
import { conversationSection } from './dashboard-conversation';
import { adminClientOf, ClientFailures } from './client-failures';
import { mcpOverview } from './mcp-overview';
import { mcpEventsPanel, mcpEventsSection } from './dashboard-mcp-events';
import { detailPage, eventRows, listPage, loginPage, page, refusedPage, requestRows, statsPanel } from './dashboard-html';
import { usageRows, type UsageOrProblem } from './dashboard-usage';

type Granted = Extract<AdminAccess, { ok: true }>;

/** Where the dashboard's script and style sheet are: packages/server/ui, beside src and dist. */
const ASSET_DIR = join(__dirname, '..', '..', 'ui');

const ASSETS: Record<string, string> = { 'dashboard.js': 'text/javascript; charset=utf-8', 'dashboard.css': 'text/css; charset=utf-8' };

/** The dashboard's usage panel sums the jobs of the last day. */
const DASHBOARD_USAGE_MS = 86_400_000;

/** The dashboard loads only its own files; no frames, no inline scripts. */
export const UI_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on form posts, which the same-origin check refuses.
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

export function mountDashboard(
  app: Express,
  express: typeof import('express'),
  deps: { gateway: Gateway; auth: AdminAuth; data: HostedData; guard: (answer: 'json' | 'html') => (req: Request, res: Response, next: NextFunction) => void },
): void {
  const { gateway, auth, data, guard } = deps;
  const assets = new Map<string, Buffer>();
  const ui = express.Router();
  ui.use((_req, res, next) => {
    res.set(UI_HEADERS);
    next();
  });
  // Assets hold no data: served without a session, so that the sign-in page is styled too.
  ui.get('/assets/:file', (req, res) => {
    const file = String(req.params.file);
    const type = ASSETS[file];
    if (!type) {
      res.status(404).type('text/plain').send('Not found\n');
      return;
    }
    let body = assets.get(file);
    if (!body) {
      body = readFileSync(join(ASSET_DIR, file));
      assets.set(file, body);
    }
    res.status(200).type(type).send(body);
  });

  // Wrong sign-in tokens, per client address: one client's guesses never lock the right token out for another.
  const signInFailures = new ClientFailures();
  ui.get('/login', (_req, res) => {
    if (!auth.requiresToken) res.redirect(303, '/ui');
    else res.type('html').send(page({ title: 'Sign in', kind: 'login', body: loginPage() }));
  });
  ui.post('/login', express.urlencoded({ extended: false, limit: '4kb' }), (req, res) => {
    if (!auth.requiresToken || !auth.sameOrigin(req)) {
      res
        .status(403)
        .type('html')
        .send(
          page({
            title: 'Not allowed',
            kind: 'refused',
            body: refusedPage(
              auth.requiresToken ? 'sign-in from another site refused' : 'no admin.token is set: the dashboard serves loopback clients without signing in',
            ),
          }),
        );
      return;
    }
    const client = adminClientOf(req);
    const wait = signInFailures.blockedFor(client);
    if (wait !== undefined) {
      res
        .status(429)
        .set('retry-after', String(wait))
        .type('html')
        .send(page({ title: 'Sign in', kind: 'login', body: loginPage('Too many failed sign-ins; wait a minute.') }));
      return;
    }
    const token = typeof req.body?.token === 'string' ? (req.body.token as string) : '';
    if (!auth.accepts(token)) {
      signInFailures.failed(client);
      gateway.logger.warn('dashboard sign-in refused: wrong admin token');
      res
        .status(401)
        .type('html')
        .send(page({ title: 'Sign in', kind: 'login', body: loginPage('That token was not accepted.') }));
      return;
    }
    const session = auth.newSession();
    const secure = req.secure || req.headers['x-forwarded-proto'] === 'https' ? '; Secure' : '';
    res.set('set-cookie', `${SESSION_COOKIE}=${session.value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${session.maxAgeSeconds}${secure}`);
    res.redirect(303, '/ui');
  });
  ui.post('/logout', (req, res) => {
    if (!auth.sameOrigin(req)) {
      res.status(403).type('text/plain').send('Cross-site sign-out refused\n');
      return;
    }
    const unsaved = auth.revoke(req);
    if (unsaved) gateway.logger.warn(`dashboard sign-out: the session ends now but could not be kept across a restart (${unsaved})`);
    res.set('set-cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`);
    res.redirect(303, auth.requiresToken ? '/ui/login' : '/ui');
  });

  ui.use(guard('html'));
  const wrap = (handler: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, _next: NextFunction) => {
    handler(req, res).catch((err: unknown) => {
      gateway.logger.error(`dashboard ${req.path} failed: ${errorMessage(err)}`);
      if (!res.headersSent)
        res
          .status(503)
          .type('html')
          .send(page({ title: 'Unavailable', kind: 'refused', body: refusedPage(`the store could not answer: ${errorMessage(err)}`) }));
    });
  };
  const shell = (req: Request, res: Response, title: string, kind: string, body: string) => {
    const access = res.locals.access as Granted;
    res.type('html').send(page({ title, kind, body, csrf: auth.csrfFor(req, access), signedIn: access.via === 'session' }));
  };
  /** The profile filter's choice (`?profile=`); an unknown name shows every profile, as an empty choice does. */
  const selectedOf = (req: Request): Selection => {
    const chosen = data.select(req.query.profile);
    return 'selected' in chosen ? chosen.selected : data.all;
  };
  const profileOf = (req: Request): string | undefined =>
    selectedOf(req).length === 1 && data.hosted.several ? selectedOf(req)[0].gateway.profile : undefined;
  /** The usage panel's report; a store that cannot give it in time leaves the panel saying so, not the page failing. */
  const dashboardUsage = (req: Request): Promise<UsageOrProblem> =>
    data.usage(selectedOf(req), Date.now() - DASHBOARD_USAGE_MS).catch((err: unknown) => ({ problem: errorMessage(err) }));
  const filtersOf = (req: Request) => {
    const parsed = parseFilters(req.query as Record<string, unknown>);
    return 'problem' in parsed ? { limit: 100 } : { ...parsed.filters, limit: parsed.filters.limit === 50 ? 100 : parsed.filters.limit };
  };
  const profiles = data.hosted.several ? data.hosted.names() : undefined;

  ui.get(
    '/',
    wrap(async (req, res) => {
      const filters = filtersOf(req);
      const selected = selectedOf(req);
      const [jobs, queue, usage, mcp] = await Promise.all([data.list(selected, filters), data.queue(selected), dashboardUsage(req), mcpOverview(gateway)]);
      shell(
        req,
        res,
        filters.status === 'dead' ? 'Dead letters' : 'Events',
        'list',
        listPage({
          jobs,
          filters: { ...filters, profile: profileOf(req) },
          profiles,
          routes: [...new Set(data.routes(selected).map((route) => route.name))].sort(),
          queue,
          minutes: data.series(selected, 30),
          requests: data.recentRequests(selected),
          usage,
          agentSubscriptions: data.agentSubscriptions(selected),
        }) + mcpEventsSection(mcp),
      );
    }),
  );
  ui.get(
    '/deliveries/:id',
    wrap(async (req, res) => {
      const hit = await data.find(selectedOf(req), String(req.params.id));
      if (!hit) {
        res.status(404);
        shell(req, res, 'Not found', 'refused', refusedPage(`no delivery '${String(req.params.id)}' (done jobs are kept for 7 days)`));
        return;
      }
      const { job, data: of } = hit;
      shell(req, res, job.deliveryId, 'detail', detailPage(job, of.journal?.job(job.id), conversationSection(await of.conversation(job))));
    }),
  );
  // Fragments the page script swaps in on live updates: the same HTML the pages are made of.
  ui.get(
    '/fragments/events',
    wrap(async (req, res) => {
      res.type('html').send(eventRows(await data.list(selectedOf(req), filtersOf(req)), profiles !== undefined));
    }),
  );
  ui.get(
    '/fragments/stats',
    wrap(async (req, res) => {
      const selected = selectedOf(req);
      res.type('html').send(statsPanel(await data.queue(selected), data.series(selected, 30)));
    }),
  );
  ui.get(
    '/fragments/usage',
    wrap(async (req, res) => {
      res.type('html').send(usageRows(await dashboardUsage(req), profiles !== undefined));
    }),
  );
  ui.get(
    '/fragments/mcp',
    wrap(async (_req, res) => {
      res.type('html').send(mcpEventsPanel(await mcpOverview(gateway)));
    }),
  );
  ui.get('/fragments/requests', (req, res) => {
    res.type('html').send(requestRows(data.recentRequests(selectedOf(req))));
  });
  mountTrialPages(ui, gateway, shell);
  mountApprovalPages(ui, gateway, shell);
  app.use('/ui', ui);
}
