// Where approvals join the gateway's paths. On the request path, a press of a draft's Approve / Deny button
// (Source.pressOf) is decided and answered, never enqueued (approval-presses.ts). On the job path, the answer of a
// route with `approval:` is held for an approver before its delivery (approvals.ts).
import type { IngestHook } from '../ingest/ingest-hooks';
import type { JobHook } from '../jobs/job-hooks';
import { answerPress } from './approval-presses';
import type { Approvals } from './approvals';

export function approvalPresses(approvals: Approvals): IngestHook {
  return {
    name: 'approvals',
    request({ source, payload }) {
      const press = source?.source.pressOf?.(payload);
      return press ? answerPress(approvals, press, source!.source) : undefined;
    },
  };
}

export function approvalHolds(approvals: Approvals): JobHook {
  return {
    name: 'approvals',
    partFor: (route, job) => (route.approval ? { holds: (answer, attempt) => approvals.holds(route, job, answer, attempt) } : undefined),
  };
}
