// The kept trials of `hookwise routes try` in the admin API (GET /api/trials, /api/trials/:id) and the dashboard
// (/ui/trials, /ui/trials/:id), mounted on the routers observability-routes.ts guards (admin token or loopback).
// Read from <config_dir>/trials, so trials made while the gateway was stopped, or by another process, are seen.
import type { Request, Response, Router } from 'express';
import type { Gateway } from '@hookwise/gateway';
import { refusedPage } from './dashboard-html';
import { trialPage, trialsListPage } from './dashboard-trials';
import { readTrialById, readTrials, trialSummary } from './trial-files';
import type { Selection } from './hosted-data';

const notFound = (id: string): string => `no trial '${id}' in <config_dir>/trials (\`hookwise trials list\` lists them)`;

export function mountTrialApi(api: Router, selectedOf: (res: Response) => Selection): void {
  // Each profile keeps its trials in its own config dir; the list names whose each is.
  api.get('/trials', (_req, res) => {
    res.json({
      trials: selectedOf(res).flatMap(({ gateway }) =>
        readTrials(gateway.options.configDir).map((trial) => ({ ...trialSummary(trial), profile: gateway.profile })),
      ),
    });
  });
  api.get('/trials/:id', (req, res) => {
    for (const { gateway } of selectedOf(res)) {
      const trial = readTrialById(gateway.options.configDir, String(req.params.id));
      if (trial) {
        res.json({ trial: { ...trial, profile: gateway.profile } });
        return;
      }
    }
    res.status(404).json({ error: notFound(String(req.params.id)) });
  });
}

type Shell = (req: Request, res: Response, title: string, kind: string, body: string) => void;

export function mountTrialPages(ui: Router, gateway: Gateway, shell: Shell): void {
  const configDir = gateway.options.configDir;
  ui.get('/trials', (req, res) => shell(req, res, 'Trials', 'trials', trialsListPage(readTrials(configDir))));
  ui.get('/trials/:id', (req, res) => {
    const trial = readTrialById(configDir, String(req.params.id));
    if (!trial) {
      res.status(404);
      shell(req, res, 'Not found', 'refused', refusedPage(notFound(String(req.params.id))));
      return;
    }
    shell(req, res, trial.id, 'trial', trialPage(trial));
  });
}
