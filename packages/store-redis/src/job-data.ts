// What a bullmq job carries for Hookwise, and the JSON pieces the accept script assembles it from.
import type { EnqueueHints, Job, JobInput } from '@hookwise/core';
import type { JobArgs } from './accept-scripts';
import { bullJobOpts } from './bullmq-layout';

/**
 * What a bullmq job carries: core's Job without what bullmq keeps itself (the id is bullmq's job id, the status its
 * state, the receipt its return value, finishedAt its finishedOn) and without the accept-time `coalesce` instruction
 * (the job keeps its coalesceKey).
 */
export type JobData = Omit<Job, 'id' | 'status' | 'receipt' | 'finishedAt' | 'coalesce'>;

/** How long a coalesce pointer outlives its job's due time (a job not leased by then takes no more events). */
const POINTER_SLACK_MS = 60_000;

/**
 * The job's pieces for the accept script. The head is the data's JSON without event, payload and coalesced
 * events (and without its closing brace); the payload and the route definition go in as the JSON texts the
 * pipeline already has (`hints`), so nothing large is serialised per request. A coalescing job is due when its
 * window ends, counted from its first event (`receivedAt + windowMs`), and waits in bullmq's delayed set until then.
 */
export function jobArgs(input: JobInput, hints: EnqueueHints | undefined, jobId: string, removeOnCompleteS: number, now: number): JobArgs {
  const { payload, event, coalesce, routeDefinition, ...rest } = input;
  const runAt = coalesce ? input.receivedAt + coalesce.windowMs : now;
  // The job's own fields are appended to the input's JSON as text (copying the input into a new object with them
  // cost more per request than the rest of this function); JSON.parse keeps the last of a repeated key, as a spread would.
  let head = JSON.stringify(rest).slice(0, -1);
  if (coalesce) head += `,"coalesceKey":${JSON.stringify(coalesce.key)}`;
  head += `,"step":"agent","attempts":0,"errors":[],"runAt":${runAt},"createdAt":${now},"updatedAt":${now}`;
  if (routeDefinition !== undefined) head += `,"routeDefinition":${hints?.routeDefinitionJson ?? JSON.stringify(routeDefinition)}`;
  const delayMs = Math.max(0, runAt - now);
  return {
    jobId,
    head,
    eventJson: JSON.stringify(event),
    payloadJson: hints?.payloadJson ?? JSON.stringify(payload ?? null),
    deliveryIdJson: JSON.stringify(input.deliveryId),
    opts: bullJobOpts(jobId, removeOnCompleteS, delayMs),
    timestamp: now,
    delayMs,
    coalesce: coalesce?.mode ?? '',
    pointerTtlMs: delayMs + POINTER_SLACK_MS,
  };
}

/** The coalesce pointer of a route and key (see accept-scripts.ts). Route names cannot contain ':'. */
export function coalescePointerKey(prefix: string, route: string, key: string): string {
  return `${prefix}:coalesce:${route}:${key}`;
}

/** The lock a running job holds on its route and concurrency key (value: its job id). */
export function runningKey(prefix: string, route: string, key: string): string {
  return `${prefix}:running:${route}:${key}`;
}

/** The jobs of a route and concurrency key that found it held and wait (score: when they were created). */
export function blockedKey(prefix: string, route: string, key: string): string {
  return `${prefix}:blocked:${route}:${key}`;
}

/** Every delivery id that names the job (a coalesced job stands for several). */
export function deliveryIdsOf(data: JobData): string[] {
  return data.coalesced?.deliveryIds ?? [data.deliveryId];
}
