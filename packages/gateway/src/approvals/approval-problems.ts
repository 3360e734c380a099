// What the config says about approvals that no check of its schema can: every approver is pinned to the platform
// whose presses may name them. A name alone (`alice`) would let anyone who calls themselves alice on any platform
// the gateway hears approve; a press counts only on the draft's own platform, chat and message in any case.
import type { Route } from '../routes/routes';
import { PINNED_APPROVER } from './approval-records';

/** An approvers entry without a platform, with the entry to write instead. */
export function approvalProblems(route: Pick<Route, 'name' | 'approval'>): string[] {
  const approval = route.approval;
  if (!approval) return [];
  const platform = approval.via ?? '<platform>';
  return approval.approvers
    .filter((entry) => !PINNED_APPROVER.test(entry))
    .map(
      (entry) =>
        `route '${route.name}': approval.approvers entry '${entry}' names no platform, so anyone who calls themselves that on any platform could approve; write it as <platform>:<user id>, e.g. '${platform}:${entry.replace(/^[^:]*:/, '').replace(/^@/, '') || 'ID'}' (telegram:123456, slack:U0123ABCD, discord:80351110224678912)`,
    );
}
