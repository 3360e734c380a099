// What a job's templates render from: the prompt of its agent run and the `deliver_extra` of its destinations.
import type { Logger } from 'winston';
import type { Job, TemplateVars } from '@hookwise/core';
import { renderPrompt, unresolvedPlaceholders } from '@hookwise/core';

/** A job as its templates see it; `previous` is the payload of the last event answered for its key (previous-event.ts). */
export type TemplateJob = Pick<Job, 'payload' | 'coalesced'> & { previous?: unknown };

/**
 * What a job's templates (prompt, deliver_extra) see beside its payload: `{__events__}`, every event's payload
 * (a coalesced job in mode `all`; else the one payload, as a list), `{__event_count__}`, how many events it
 * stands for, and `{__previous__}`, the last answered event's payload for the same key, when there is one.
 */
export function templateVarsOf(job: TemplateJob): TemplateVars {
  const vars: TemplateVars = { __events__: job.coalesced?.payloads ?? [job.payload], __event_count__: job.coalesced?.deliveryIds.length ?? 1 };
  if (job.previous !== undefined) vars.__previous__ = job.previous;
  return vars;
}

/** The placeholders of a route's prompt that match nothing in this job's payload (they stay literal). */
export function unresolvedOf(template: string | undefined, job: TemplateJob): string[] {
  return unresolvedPlaceholders(template, job.payload, templateVarsOf(job));
}

/** At debug level only (the scan is skipped otherwise): which placeholders of the prompt matched nothing. */
export function logUnresolved(logger: Logger, route: { name: string; prompt?: string }, job: TemplateJob & Pick<Job, 'deliveryId'>): void {
  if (!route.prompt || !logger.isDebugEnabled()) return;
  const unresolved = unresolvedOf(route.prompt, job);
  if (unresolved.length === 0) return;
  logger.debug(`route '${route.name}': the prompt's ${unresolved.join(', ')} matched nothing in the payload and stay literal`, {
    route: route.name,
    deliveryId: job.deliveryId,
    unresolved,
  });
}

/**
 * A job's prompt. A route without a prompt template gets the payload dump: of every event when the job holds them
 * all (a coalesced job in mode `all`), else of its one payload, as before coalescing existed.
 */
export function promptOf(template: string | undefined, job: TemplateJob): string {
  const vars = templateVarsOf(job);
  return renderPrompt(template, job.payload, template || job.coalesced?.payloads ? vars : undefined);
}
