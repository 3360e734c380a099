// `hookwise routes run` through the built binary against a running gateway: the route's event runs now on the
// gateway's own store (event type schedule, the schedule's payload or --payload's file, scheduled_at), through its
// agent and delivery, and shows in `deliveries` and the metrics like a webhook's event.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeRunFile } from '@hookwise/gateway';
import type { TestGateway } from '@hookwise/testing';
import { observedConfig, settled, startObserved } from '../../../server/test/integration/observed-gateway';
import { runCli } from '../cli-process';

jest.setTimeout(60_000);

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

/** The observed gateway with the admin API and metrics, and a route `standup` that runs on weekdays at 09:00 in Berlin. */
async function started(): Promise<TestGateway> {
  const { platforms } = observedConfig() as { platforms: { webhook: { extra: { routes: Record<string, unknown> } } } };
  platforms.webhook.extra.routes.standup = {
    secret: 'standup-secret-0123456789',
    deliver: 'flaky',
    prompt: 'Standup of {team} at {scheduled_at}',
    schedule: { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', payload: { team: 'core' } },
  };
  gw = await startObserved({ platforms, admin: { enabled: true }, metrics: { enabled: true } });
  // What `hookwise gateway run` writes while it serves; the harness starts the server without it.
  writeRunFile(gw.configDir, { pid: process.pid, url: gw.url, host: '127.0.0.1', port: gw.port, started_at: new Date().toISOString() });
  return gw;
}

describe('hookwise routes run', () => {
  it("fires a route now with its schedule's payload: a job of event schedule that runs, is delivered and is counted", async () => {
    const gateway = await started();
    const run = await runCli(['routes', 'run', 'standup'], gateway.configDir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const [, deliveryId] = /^Route 'standup' runs now \(delivery (run:standup:\S+)\)/.exec(run.stdout) ?? [];
    expect(deliveryId).toBeDefined();
    await settled(gateway, 1);
    const job = await gateway.gateway.store.jobs.findByDeliveryId(deliveryId);
    expect(job).toMatchObject({ route: 'standup', event: 'schedule', status: 'done' });
    const at = String((job!.payload as Record<string, unknown>).scheduled_at);
    expect(job!.payload).toEqual({ team: 'core', scheduled_at: at });
    expect(job!.answer).toBe(`Answer to: Standup of core at ${at}`);

    const list = await runCli(['deliveries', 'list', '--route', 'standup', '--json'], gateway.configDir);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ deliveryId, event: 'schedule', status: 'done' })]);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toContain('hookwise_webhook_requests_total{route="standup",status="202",outcome="accepted"} 1');
    expect(metrics).toMatch(/hookwise_jobs_completed_total\{route="standup",[^}]*\} 1/);
  });

  it('takes the payload from --payload, and runs a route that has no schedule (its events: list does not stop it)', async () => {
    const gateway = await started();
    const file = join(gateway.configDir, 'push.json');
    writeFileSync(file, JSON.stringify({ ref: 'main', repository: { name: 'hookwise' } }));
    const run = await runCli(['routes', 'run', 'ci', '--payload', file, '--json'], gateway.configDir);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { status: number; body: { status: string; delivery_id: string; event: string } };
    expect(result).toMatchObject({ status: 202, body: { status: 'accepted', event: 'schedule' } });
    await settled(gateway, 1);
    expect((await gateway.gateway.store.jobs.findByDeliveryId(result.body.delivery_id))?.answer).toBe('Answer to: Build main of hookwise');
  });

  it('says what is wrong: an unknown route, a payload that is no object, the admin API off', async () => {
    const gateway = await started();
    const unknown = await runCli(['routes', 'run', 'nope'], gateway.configDir);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('the gateway answered 404: Unknown route: nope (hookwise routes list shows the routes)');
    const file = join(gateway.configDir, 'list.json');
    writeFileSync(file, '[1, 2]');
    const bad = await runCli(['routes', 'run', 'standup', '--payload', file], gateway.configDir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--payload must be a JSON object');
    await gateway.stop();
    gw = await startObserved(observedConfig());
    const off = await runCli(['routes', 'run', 'ci'], gw.configDir);
    expect(off.code).toBe(1);
    expect(off.stderr).toContain('routes run fires the route on the running gateway through its admin API, which is off: set admin.enabled: true');
  });
});
