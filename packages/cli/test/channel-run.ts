// A job channel opened as the gateway's job path opens it for one run: with the tools of its route's actions
// (`subscribe` by default), without which the channel refuses to subscribe (PUT) or remove (DELETE).
import type { Gateway } from '@hookwise/gateway';
import { JobActions } from '../../gateway/src/actions/run-actions';
import type { JobChannel, JobChannels } from '../../gateway/src/job-channel/job-channel';

type RouteOf = Parameters<JobActions['forRun']>[0];
type JobOf = Parameters<JobActions['forRun']>[1];

export function openRunChannel(
  gateway: Gateway,
  channels: JobChannels,
  run: { id: string; route: string },
  actions: Record<string, Record<string, unknown>> = { subscribe: {} },
): Promise<JobChannel> {
  const { services } = gateway;
  const jobActions = new JobActions({
    logger: services.logger,
    retry: services.retry,
    progress: services.progress,
    catalogue: gateway.actions,
    delivererById: (to) => gateway.delivererById(to),
    platformEnabled: () => false,
  });
  const route = { ...(gateway.routes.get(run.route) ?? { name: run.route, destinations: [] }), actions } as RouteOf;
  const job = { id: run.id, route: run.route, deliveryId: `d-${run.id}`, payload: {} } as unknown as JobOf;
  return channels.open(run, jobActions.forRun(route, job, new AbortController().signal));
}
