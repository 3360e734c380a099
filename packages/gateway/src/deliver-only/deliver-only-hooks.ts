// Where `deliver_only: true` routes join the gateway's paths: on the job path the rendered prompt is the answer,
// with no runner and no budget; on the request path the request waits for that job's delivery
// (deliver-only-waits.ts) and answers how it went.
import type { IngestHook } from '../ingest/ingest-hooks';
import type { JobHook } from '../jobs/job-hooks';
import { promptHygieneOf, runPromptOf } from '../jobs/prompt-hygiene';
import type { DeliverOnlyWaits } from './deliver-only-waits';

export function deliverOnlyWaits(waits: DeliverOnlyWaits): IngestHook {
  return {
    name: 'deliver_only',
    watch(route) {
      if (!route.deliverOnly) return undefined;
      waits.expect();
      return { answerFor: (result, answer) => waits.answerFor(result, answer), cancel: () => waits.done() };
    },
  };
}

export const deliverOnlyAnswers: JobHook = {
  name: 'deliver_only',
  partFor: (route, job) => (route.deliverOnly ? { answerWithoutRun: () => runPromptOf(route.prompt, job, { hygiene: promptHygieneOf(route) }) } : undefined),
};
