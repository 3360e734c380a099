// How the memory queue holds a job and hands out copies: one object shape per job, payloads kept as JSON text
// (or a private copy), and snapshots for callers that share nothing with the queued job.
import type { CoalescedEvents, Job, JobInput } from '@hookwise/core';

/**
 * A payload kept as the JSON text it was parsed from (`EnqueueHints.payloadJson`): one flat string, smaller than
 * the parsed object (about 0.8× for a 1 KB pull-request payload) and, unlike the object's many small parts, nothing
 * for the garbage collector to copy or trace while the job waits. Parsed again when the job is handed out.
 */
class JsonText {
  constructor(readonly text: string) {}
}

/**
 * The job fields in one fixed order, so that every queued job shares one object shape (`{ ...input, … }` gave
 * each job a hidden class and a property array of its own, about 0.5 KB).
 */
export function pendingJob(id: string, input: JobInput, payload: unknown, at: number): Job {
  const { route, event, deliveryId, receivedAt, routeDefinition } = input;
  return {
    route,
    event,
    deliveryId,
    payload,
    receivedAt,
    routeDefinition,
    id,
    status: 'pending',
    attempts: 0,
    step: 'agent',
    errors: [],
    runAt: at,
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * How the queue keeps a payload: as its JSON text when the caller has it (the pipeline always does), otherwise as a
 * private deep copy, so that a caller changing its object after `enqueue` never changes the queued job.
 */
export function keep(payload: unknown, json: string | undefined): unknown {
  return json === undefined ? structuredClone(payload) : new JsonText(json);
}

/** A kept payload as a fresh object for a caller. */
function unkeep(kept: unknown): unknown {
  return kept instanceof JsonText ? JSON.parse(kept.text) : structuredClone(kept);
}

/** A caller's copy of a queued job: nothing it changes reaches the queue, and the payloads are objects again. */
export function snapshot(stored: Job): Job {
  const { payload, coalesced } = stored;
  const job = structuredClone(coalesced ? { ...stored, payload: undefined, coalesced: undefined } : { ...stored, payload: undefined }) as Job;
  job.payload = unkeep(payload);
  if (coalesced) job.coalesced = copyOfEvents(coalesced);
  return job;
}

function copyOfEvents(events: CoalescedEvents): CoalescedEvents {
  const copy: CoalescedEvents = { deliveryIds: [...events.deliveryIds] };
  if (events.payloads) copy.payloads = events.payloads.map(unkeep);
  return copy;
}
