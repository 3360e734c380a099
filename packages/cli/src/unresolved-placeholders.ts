// Placeholders of a route's prompt that match nothing in a payload: they reach the agent literally (the template
// rules keep them), so `deliveries show` and `webhook test` list them for the person reading.
import { unresolvedPlaceholders, type Job } from '@hookwise/core';
import { loadChosen, type ProfileChoice } from './profile-choice';
import { listRoutes } from './route-listing';

/** A job's template vars, as the gateway builds them for its prompt (gateway jobs/job-templates.ts). */
function jobVars(job: Pick<Job, 'payload' | 'coalesced'>): Record<string, unknown> {
  return { __events__: job.coalesced?.payloads ?? [job.payload], __event_count__: job.coalesced?.deliveryIds.length ?? 1 };
}

/** The unresolved placeholders of `prompt` over a job's payload (none when the route has no prompt). */
export function unresolvedInJob(prompt: string | undefined, job: Pick<Job, 'payload' | 'coalesced'>): string[] {
  return unresolvedPlaceholders(prompt, job.payload, jobVars(job));
}

/**
 * As the gateway would render a test event's payload: one event, not coalesced. `{__previous__.*}` names the route's
 * previous event (none for a first event: the template says what then), not this payload: never listed.
 */
export function unresolvedInPayload(prompt: string | undefined, payload: Record<string, unknown>): string[] {
  return unresolvedPlaceholders(prompt, payload, { __events__: [payload], __event_count__: 1 }).filter((p) => !p.startsWith('{__previous__'));
}

/**
 * The route's prompt template as configured now (config.yaml or its subscription), or undefined when the route is
 * gone or the config does not load: `deliveries show` then lists nothing rather than failing.
 */
export function currentRoutePrompt(choice: ProfileChoice, routeName: string): string | undefined {
  try {
    return listRoutes(loadChosen(choice)).find((r) => r.name === routeName && r.status === 'active')?.route?.prompt;
  } catch {
    return undefined;
  }
}

export function unresolvedText(unresolved: readonly string[]): string {
  return `${unresolved.join(', ')} match nothing in the payload and reach the agent literally: check the names against the payload's keys`;
}
