// What a job's templates render from: the prompt of its agent run and the `deliver_extra` of its destinations.
import type { Job, TemplateVars } from '@hookwise/core';
import { renderPrompt } from '@hookwise/core';

/**
 * What a job's templates (prompt, deliver_extra) see beside its payload: `{__events__}`, every event's payload
 * (a coalesced job in mode `all`; else the one payload, as a list), and `{__event_count__}`, how many events it
 * stands for.
 */
export function templateVarsOf(job: Pick<Job, 'payload' | 'coalesced'>): TemplateVars {
  return { __events__: job.coalesced?.payloads ?? [job.payload], __event_count__: job.coalesced?.deliveryIds.length ?? 1 };
}

/**
 * A job's prompt. A route without a prompt template gets the payload dump: of every event when the job holds them
 * all (a coalesced job in mode `all`), else of its one payload, as before coalescing existed.
 */
export function promptOf(template: string | undefined, job: Pick<Job, 'payload' | 'coalesced'>): string {
  const vars = templateVarsOf(job);
  return renderPrompt(template, job.payload, template || job.coalesced?.payloads ? vars : undefined);
}
