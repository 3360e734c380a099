// Where trial runs are kept: one JSON file per trial under <config_dir>/trials/<id>.json. A file beside the config
// works with every store backend (memory, SQLite, Redis, a third-party store) without a change to the Store
// contract, survives restarts, and is read by the admin API the same way (packages/server/src/admin/trial-files.ts).
// The files hold answers and payload excerpts, so they are written owner-only, like .env.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentUsage } from '@hookwise/core';
import { HookwiseError } from '@hookwise/core';

/** The state of one side (the stored run, or the trial run) of one event. */
export interface TrialSide {
  /** passed: the route's filter let the event through (or it has none); filtered: it would be dropped. */
  filter: 'passed' | 'filtered';
  /** Why the filter dropped it (the failed test), when it did. */
  filterReason?: string;
  /** The answer; absent when the filter dropped the event, the run failed or (old side) no run finished. */
  answer?: string;
  /** The answer would not be delivered: empty or the route's silent marker. */
  silent?: boolean;
  usage?: AgentUsage;
  /** input + output tokens, as budgets count them. */
  tokens?: number;
  /** The agent run's wall time; the store keeps none for the stored run, so the old side leaves it out. */
  durationMs?: number;
  /** The run failed (timeout, runner error): the message. */
  error?: string;
  /** The stored job's state and outcome (old side only): done/delivered, done/silent, dead. */
  status?: string;
}

export interface TrialEvent {
  deliveryId: string;
  jobId: string;
  event: string;
  receivedAt: number;
  /** What changed for this event, in one word: same, changed, filtered-out-now, passes-now, both-filtered, error. */
  change: 'same' | 'changed' | 'filtered-out-now' | 'passes-now' | 'both-filtered' | 'error';
  old: TrialSide;
  new: TrialSide;
}

export interface TrialTotals {
  events: number;
  /** Agent runs of the trial (events the candidate's filter let through and that were run). */
  runs: number;
  silent: number;
  /** silent / runs (0 without runs), for the stored runs and the trial's. */
  silentRate: { old: number; new: number };
  tokens: { old: number; new: number };
  /** Sum of the trial runs' wall times; the stored runs' are not kept. */
  durationMs: { new: number };
  filteredOutNow: number;
  passesNow: number;
  errors: number;
}

export interface TrialRecord {
  id: string;
  route: string;
  createdAt: string;
  /** The change tried, as given on the command line (flags and files' names, never secrets). */
  change: Record<string, unknown>;
  /** How the events were chosen (--last, --since, --ids, --outcome). */
  selection: Record<string, unknown>;
  /** Set when --max-tokens stopped the trial: the events after the stop were not run. */
  stopped?: { reason: string; notRun: string[] };
  events: TrialEvent[];
  totals: TrialTotals;
}

const ID_PATTERN = /^[a-z0-9-]{6,80}$/;

export const trialsDir = (configDir: string): string => join(configDir, 'trials');

/** A new trial id that sorts by time: t-20260131-142501-3fa2. */
export function newTrialId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `t-${stamp}-${randomBytes(2).toString('hex')}`;
}

/** Writes the trial atomically (a reader never sees half a file), owner-only. */
export function saveTrial(configDir: string, trial: TrialRecord): string {
  const dir = trialsDir(configDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${trial.id}.json`);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(trial, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
  return file;
}

/** Every stored trial, newest first; files that do not parse are skipped (a half-copied backup, a stray file). */
export function listTrials(configDir: string): TrialRecord[] {
  let names: string[];
  try {
    names = readdirSync(trialsDir(configDir)).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const trials: TrialRecord[] = [];
  for (const name of names) {
    try {
      const trial = JSON.parse(readFileSync(join(trialsDir(configDir), name), 'utf8')) as TrialRecord;
      if (trial && typeof trial.id === 'string' && Array.isArray(trial.events)) trials.push(trial);
    } catch {
      /* not a trial file */
    }
  }
  return trials.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
}

/** One trial by id or a unique prefix of it. */
export function readTrial(configDir: string, id: string): TrialRecord {
  if (ID_PATTERN.test(id)) {
    try {
      return JSON.parse(readFileSync(join(trialsDir(configDir), `${id}.json`), 'utf8')) as TrialRecord;
    } catch {
      /* try it as a prefix */
    }
  }
  const matches = listTrials(configDir).filter((trial) => trial.id.startsWith(id));
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) throw new HookwiseError('HW_E_STORE', `'${id}' is the start of ${matches.length} trial ids: give more of it`);
  throw new HookwiseError('HW_E_STORE', `no trial '${id}' in ${trialsDir(configDir)}: see \`hookwise trials list\``);
}
