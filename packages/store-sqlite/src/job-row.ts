// The jobs table's rows: the full row a job is read from, and the few columns the lease picks a job by.
import type { AgentUsage, CoalescedEvents, DestinationState, Job, JobError, JobOutcome, JobRoute, JobStatus, JobStep, JobSummary } from '@hookwise/core';

export interface JobRow {
  seq: number;
  id: string;
  route: string;
  event: string;
  delivery_id: string;
  payload: string;
  received_at: number;
  status: JobStatus;
  step: JobStep;
  attempts: number;
  prompt: string | null;
  answer: string | null;
  receipt: string | null;
  errors: string;
  run_at: number;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  route_def: string | null;
  destinations: string | null;
  usage: string | null;
  outcome: JobOutcome | null;
  note: string | null;
  coalesce_key: string | null;
  concurrency_key: string | null;
  coalesced: string | null;
}

/** A waiting job as the lease sees it: its place in the queue and what its concurrency check needs. */
export interface Candidate {
  seq: number;
  run_at: number;
  route: string;
  concurrency_key: string | null;
}

/** `requeued` (schema 5 and 8): in the queue since it was written and due at once, put back after a lease, or a coalescing job never leased. */
export const FRESH = 0;
export const COALESCING = 2;

export function toJob(row: JobRow): Job {
  const job: Job = {
    id: row.id,
    route: row.route,
    event: row.event,
    deliveryId: row.delivery_id,
    payload: JSON.parse(row.payload) as unknown,
    receivedAt: row.received_at,
    status: row.status,
    step: row.step,
    attempts: row.attempts,
    errors: JSON.parse(row.errors) as JobError[],
    runAt: row.run_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.prompt !== null) job.prompt = row.prompt;
  if (row.answer !== null) job.answer = row.answer;
  copyListedFields(row, job);
  if (row.coalesced !== null) job.coalesced = JSON.parse(row.coalesced) as CoalescedEvents;
  return job;
}

/**
 * The columns a list row needs: all but the payload, the prompt and the answer, and of `coalesced` only the delivery
 * ids (its payloads are what make a coalesced row big). None of the skipped text is copied into the JavaScript heap.
 */
export const SUMMARY_COLUMNS =
  'seq, id, route, event, delivery_id, received_at, status, step, attempts, receipt, errors, run_at, created_at, updated_at, finished_at, ' +
  "route_def, destinations, usage, outcome, note, coalesce_key, concurrency_key, json_extract(coalesced, '$.deliveryIds') AS coalesced_ids, " +
  'answer IS NOT NULL AS answered';

export type SummaryRow = Omit<JobRow, 'payload' | 'prompt' | 'answer' | 'coalesced'> & { coalesced_ids: string | null; answered: 0 | 1 };

export function toSummary(row: SummaryRow): JobSummary {
  const summary: JobSummary = {
    id: row.id,
    route: row.route,
    event: row.event,
    deliveryId: row.delivery_id,
    receivedAt: row.received_at,
    status: row.status,
    step: row.step,
    attempts: row.attempts,
    errors: JSON.parse(row.errors) as JobError[],
    runAt: row.run_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    answered: row.answered === 1,
  };
  copyListedFields(row, summary);
  if (row.coalesced_ids !== null) summary.coalesced = { deliveryIds: JSON.parse(row.coalesced_ids) as string[] };
  return summary;
}

/** The nullable columns a full job and a summary share. */
function copyListedFields(row: SummaryRow | JobRow, job: JobSummary): void {
  if (row.receipt !== null) job.receipt = JSON.parse(row.receipt) as unknown;
  if (row.finished_at !== null) job.finishedAt = row.finished_at;
  if (row.route_def !== null) job.routeDefinition = JSON.parse(row.route_def) as JobRoute;
  if (row.destinations !== null) job.destinations = JSON.parse(row.destinations) as DestinationState[];
  if (row.usage !== null) job.usage = JSON.parse(row.usage) as AgentUsage;
  if (row.outcome !== null) job.outcome = row.outcome;
  if (row.note !== null) job.note = row.note;
  if (row.coalesce_key !== null) job.coalesceKey = row.coalesce_key;
  if (row.concurrency_key !== null) job.concurrencyKey = row.concurrency_key;
}
