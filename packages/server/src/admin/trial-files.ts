// Reads the trials `hookwise routes try` keeps under <config_dir>/trials/<id>.json (written by the CLI's
// trial-store.ts; the server never imports the CLI). Only the fields the admin API and the dashboard show are
// typed here; a file that does not parse is skipped, an id that is not a trial id is never joined into a path.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TrialSideView {
  filter: 'passed' | 'filtered';
  filterReason?: string;
  answer?: string;
  silent?: boolean;
  tokens?: number;
  durationMs?: number;
  error?: string;
  status?: string;
}

export interface TrialEventView {
  deliveryId: string;
  event: string;
  receivedAt: number;
  change: string;
  old: TrialSideView;
  new: TrialSideView;
}

export interface TrialView {
  id: string;
  route: string;
  createdAt: string;
  change: Record<string, unknown>;
  selection?: Record<string, unknown>;
  stopped?: { reason: string; notRun: string[] };
  events: TrialEventView[];
  totals: {
    events: number;
    runs: number;
    silentRate: { old: number; new: number };
    tokens: { old: number; new: number };
    filteredOutNow: number;
    passesNow: number;
  };
}

/** The ids `routes try` makes (t-20260131-142501-3fa2); anything else is refused before touching the disk. */
export const TRIAL_ID = /^[a-z0-9-]{6,80}$/;

const dirOf = (configDir: string): string => join(configDir, 'trials');

function readOne(file: string): TrialView | undefined {
  try {
    const trial = JSON.parse(readFileSync(file, 'utf8')) as TrialView;
    return trial && typeof trial.id === 'string' && Array.isArray(trial.events) ? trial : undefined;
  } catch {
    return undefined;
  }
}

/** Every kept trial, newest first. */
export function readTrials(configDir: string): TrialView[] {
  let names: string[];
  try {
    names = readdirSync(dirOf(configDir)).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  return names
    .map((name) => readOne(join(dirOf(configDir), name)))
    .filter((trial): trial is TrialView => trial !== undefined)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
}

export function readTrialById(configDir: string, id: string): TrialView | undefined {
  return TRIAL_ID.test(id) ? readOne(join(dirOf(configDir), `${id}.json`)) : undefined;
}

/** A list row: the trial without its events' answers. */
export function trialSummary(trial: TrialView): Omit<TrialView, 'events'> & { changed: number } {
  const { events, ...rest } = trial;
  return { ...rest, changed: events.filter((e) => e.change === 'changed').length };
}
