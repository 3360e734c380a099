// `POST /api/routes/:route/run` (what `hookwise routes run` calls): one event of a route now, as a tick of its
// schedule would be (event type `schedule`, its schedule's payload or the one sent, scheduled_at now), through the
// route's filter and the running gateway's store, so it shows in deliveries, metrics and the dashboard. Mounted on
// the router observability-routes.ts guards (admin token or session, the CSRF header for actions).
import { errorMessage } from '@hookwise/core';
import type { Response, Router } from 'express';
import type { AdminData } from './admin-data';
import type { Selection } from './hosted-data';

/** The largest payload a run takes: the webhook adapter's body limit is for senders, this one for operators. */
const MAX_PAYLOAD_BYTES = '1mb';

export function mountRunApi(api: Router, selectedOf: (res: Response) => Selection, main: AdminData): void {
  const express = require('express') as typeof import('express');
  api.post('/routes/:route/run', express.json({ limit: MAX_PAYLOAD_BYTES, type: () => true }), (req, res) => {
    const route = String(req.params.route);
    // A route name may be taken in several profiles: without `?profile=` it is the default profile's.
    const selected = selectedOf(res);
    const { gateway } = selected.length === 1 ? selected[0] : main;
    const sent = (req.body ?? {}) as { payload?: unknown };
    const { payload } = sent;
    if (payload !== undefined && (payload === null || typeof payload !== 'object' || Array.isArray(payload))) {
      res.status(400).json({ error: 'payload must be a JSON object' });
      return;
    }
    gateway.features.schedules.runNow(route, payload as Record<string, unknown> | undefined).then(
      (result) => {
        if (!result) {
          res.status(404).json({ error: `Unknown route: ${route} (hookwise routes list shows the routes)` });
          return;
        }
        if (result.outcome === 'accepted') gateway.workers.pump();
        const { status, body } = result.answer;
        res
          .status(status)
          .json({ ...(typeof body === 'string' ? { body } : body), delivery_id: result.deliveryId, event: 'schedule', profile: gateway.profile });
      },
      (err: unknown) => {
        gateway.logger.error(`admin API run of route '${route}' failed: ${errorMessage(err)}`);
        if (!res.headersSent) res.status(503).json({ error: `the store could not answer: ${errorMessage(err)}` });
      },
    );
  });
}
