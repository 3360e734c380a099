// The kept trials of `hookwise routes try` in the admin API (GET /api/trials, /api/trials/:id) and the dashboard
// (/ui/trials, /ui/trials/:id), mounted on the routers observability-routes.ts guards (admin token or loopback).
// Read from <config_dir>/trials, so trials made while the gateway was stopped, or by another process, are seen.
import type { Request, Response, Router } from 'express';
import type { Gateway } from '@hookwise/gateway';
import { refusedPage } from './dashboard-html';
import { trialPage, trialsListPage } from './dashboard-trials';
import { readTrialById, readTrials, trialSummary } from './trial-files';

const notFound = (id: string): string => `no trial '${id}' in <config_dir>/trials (\`hookwise trials list\` lists them)`;

export function mountTrialApi(api: Router, gateway: Gateway): void {
  const configDir = gateway.options.configDir;
  api.get('/trials', (_req, res) => {
    res.json({ trials: readTrials(configDir).map(trialSummary) });
  });
  api.get('/trials/:id', (req, res) => {
    const trial = readTrialById(configDir, String(req.params.id));
    if (!trial) res.status(404).json({ error: notFound(String(req.params.id)) });
    else res.json({ trial });
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
