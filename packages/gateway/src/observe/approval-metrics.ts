// The approval metrics, fed from lifecycle events as every other metric is: `approval_requested`,
// `approved` and `denied`, and the `completed` event of a job that ended `expired`. Nothing in the approval code
// itself knows about metrics.
import type { Counter, Histogram, Registry } from 'prom-client';
import type { LifecycleEventName, LifecycleListener } from './lifecycle';

/** Time to a decision: people answer in seconds to a day (expires_hours defaults to 24). */
const DECISION_BUCKETS = [5, 15, 30, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 24 * 3600, 72 * 3600];
/** When asked, per job, for the requests made in this process (most are decided in the process that asked). */
const REQUESTS_REMEMBERED = 10_000;

export interface ApprovalMetricsDeps {
  client: typeof import('prom-client');
  registry: Registry;
  routeLabel(route: string): string;
  on<K extends LifecycleEventName>(name: K, listener: LifecycleListener<K>): void;
  /**
   * When a job's approval was asked, for a decision whose request this process did not see (another gateway on the
   * store, or before a restart): the approval record's requestedAt. Undefined when unknown (nothing observed).
   */
  requestedAt(jobId: string): Promise<number | undefined>;
  now?: () => number;
}

export interface ApprovalMetrics {
  approvals: Counter<'route' | 'result'>;
  decisionSeconds: Histogram<'route' | 'result'>;
}

export function approvalMetrics(deps: ApprovalMetricsDeps): ApprovalMetrics {
  const { client, registry, routeLabel, on } = deps;
  const now = deps.now ?? Date.now;
  const approvals = new client.Counter({
    name: 'hookwise_approvals_total',
    help: "Routes' approvals by route and result: requested (a draft held for an approver), approved, denied (an allowed approver's press in this process), expired (a held job ended unanswered in this process).",
    labelNames: ['route', 'result'] as const,
    registers: [registry],
  });
  const decisionSeconds = new client.Histogram({
    name: 'hookwise_approval_decision_seconds',
    help: 'Time from an approval request to its decision (approved, denied), by route and result, for decisions made in this process.',
    labelNames: ['route', 'result'] as const,
    buckets: DECISION_BUCKETS,
    registers: [registry],
  });
  // Insertion-ordered: past the bound the oldest request is forgotten (its decision then reads the record).
  const requested = new Map<string, number>();
  const decided = (jobId: string, route: string, result: 'approved' | 'denied'): void => {
    const label = routeLabel(route);
    approvals.inc({ route: label, result });
    const at = now();
    const asked = requested.get(jobId);
    requested.delete(jobId);
    const observe = (since: number | undefined): void => {
      if (since !== undefined && since <= at) decisionSeconds.observe({ route: label, result }, (at - since) / 1000);
    };
    if (asked !== undefined) observe(asked);
    else void deps.requestedAt(jobId).then(observe, () => undefined); // a store that does not answer: no observation
  };
  on('approval_requested', (e) => {
    approvals.inc({ route: routeLabel(e.route), result: 'requested' });
    requested.set(e.jobId, now());
    if (requested.size > REQUESTS_REMEMBERED) requested.delete(requested.keys().next().value as string);
  });
  on('approved', (e) => decided(e.jobId, e.route, 'approved'));
  on('denied', (e) => decided(e.jobId, e.route, 'denied'));
  on('completed', (e) => {
    if (e.outcome !== 'expired') return;
    requested.delete(e.jobId);
    approvals.inc({ route: routeLabel(e.route), result: 'expired' });
  });
  return { approvals, decisionSeconds };
}
