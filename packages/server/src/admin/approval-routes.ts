// Approvals in the admin API and the dashboard: the answers held for an approver (GET /api/approvals,
// /ui/approvals) and the operator's decision (POST /api/approvals/:id/approve | deny), mounted on the routers that
// observability-routes.ts guards (admin token or session, the CSRF header for actions). The operator signed in to
// the dashboard decides as "dashboard"; the gateway's Approvals apply the same rules as a chat button's press.
import type { Request, Response, Router } from 'express';
import type { Gateway } from '@hookwise/gateway';
import { approvalsPage, type HeldView } from './dashboard-approvals';
import type { Selection } from './hosted-data';

type Shell = (req: Request, res: Response, title: string, kind: string, body: string) => void;

async function held(gateway: Gateway): Promise<HeldView[]> {
  return (await gateway.approvals.pending()).map(({ job, record }) => ({
    profile: gateway.profile,
    jobId: job.id,
    deliveryId: job.deliveryId,
    route: job.route,
    event: job.event,
    answer: job.answer ?? '',
    approvers: record.approvers,
    requestedAt: record.requestedAt,
    expiresAt: record.expiresAt,
    via: record.via,
  }));
}

const fail = (gateway: Gateway, res: Response, err: unknown) => {
  gateway.logger.error(`admin API approvals failed: ${(err as Error).message}`);
  if (!res.headersSent) res.status(503).json({ error: `the store could not answer: ${(err as Error).message}` });
};

/** The held answers of the selected profiles, newest request first. */
async function heldIn(selected: Selection): Promise<HeldView[]> {
  const each = await Promise.all(selected.map(({ gateway }) => held(gateway)));
  return each.flat().sort((a, b) => b.requestedAt - a.requestedAt);
}

export function mountApprovalApi(api: Router, selectedOf: (res: Response) => Selection): void {
  api.get('/approvals', (_req, res) => {
    const selected = selectedOf(res);
    heldIn(selected).then(
      (approvals) => res.json({ approvals }),
      (err: unknown) => fail(selected[0].gateway, res, err),
    );
  });
  api.post('/approvals/:id/:decision', (req, res) => {
    const decision = String(req.params.decision);
    if (decision !== 'approve' && decision !== 'deny') {
      res.status(404).json({ error: `no action '${decision}': POST /api/approvals/<job id>/approve or /deny` });
      return;
    }
    const id = String(req.params.id);
    const selected = selectedOf(res);
    // The job's approval is in its own profile's records: asked of each selected profile until one has it.
    const decide = async () => {
      for (const { gateway } of selected) {
        const outcome = await gateway.approvals.decide(id, decision, { platform: 'dashboard', id: 'operator' });
        if (outcome.result !== 'unknown') return { gateway, outcome };
      }
      return undefined;
    };
    decide().then(
      (decided) => {
        if (!decided) res.status(404).json({ error: `no approval for job '${id}' (GET /api/approvals lists the held answers)` });
        else if (decided.outcome.result === 'already')
          res.status(409).json({ error: `the approval is ${decided.outcome.record.status} already`, status: decided.outcome.record.status });
        else {
          decided.gateway.workers.pump();
          res.json({ result: decided.outcome.result, status: decided.outcome.record.status, by: decided.outcome.record.by, profile: decided.gateway.profile });
        }
      },
      (err: unknown) => fail(selected[0].gateway, res, err),
    );
  });
}

export function mountApprovalPages(ui: Router, gateway: Gateway, shell: Shell): void {
  ui.get('/approvals', (req, res) => {
    held(gateway).then(
      (views) => shell(req, res, 'Approvals', 'approvals', approvalsPage(views)),
      (err: unknown) => {
        gateway.logger.error(`dashboard /approvals failed: ${(err as Error).message}`);
        res
          .status(503)
          .type('text')
          .send(`the store could not answer: ${(err as Error).message}`);
      },
    );
  });
}
