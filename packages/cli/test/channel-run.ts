// A job channel opened as the gateway's job path opens it for one run: with the tools of its route's actions
// (`subscribe` by default), without which the channel refuses to subscribe (PUT) or remove (DELETE).
import type { Job } from '@hookwise/core';
import type { Gateway } from '@hookwise/gateway';
import { signGeneric, type TestGateway } from '@hookwise/testing';
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

/**
 * Posts `{ args }` to a route of a test gateway and waits for the run's stored answer (read from the admin API, with
 * `adminToken` when it has one); the run must end done.
 */
export async function agentAnswer(
  gw: TestGateway,
  run: { route: string; secret: string; deliveryId: string; args: string; adminToken?: string },
): Promise<string> {
  const body = JSON.stringify({ args: run.args });
  const posted = await gw.post(run.route, body, { 'x-webhook-signature': signGeneric(run.secret, body), 'x-request-id': run.deliveryId });
  expect(posted.status).toBe(202);
  const headers: Record<string, string> = run.adminToken ? { authorization: `Bearer ${run.adminToken}` } : {};
  const end = Date.now() + 60_000;
  for (;;) {
    const res = await fetch(`${gw.url}/api/deliveries/${run.deliveryId}`, { headers });
    const job = ((await res.json()) as { delivery?: Job & { answer?: string } }).delivery;
    if (job?.status === 'done' || job?.status === 'dead') {
      expect(job.status).toBe('done');
      return job.answer ?? '';
    }
    if (Date.now() > end) throw new Error(`${run.deliveryId} did not finish: ${JSON.stringify(job)}\nlog:\n${gw.logText()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
