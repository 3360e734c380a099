// `hookwise routes list`, `hookwise doctor` and delivery ids with the real binary: routes with where their secret
// comes from (never the secret), doctor's table and JSON with a failing check, whole ids and unique prefixes.
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closedPort, runCli, tempHome } from '../cli-process';
import { startCli } from '../long-running';

jest.setTimeout(120_000);

const homes: string[] = [];
function home(): string {
  const dir = tempHome();
  homes.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of homes) rmSync(dir, { recursive: true, force: true });
});

const ROUTE_SECRET = 'route-own-secret-0123456789';
const GLOBAL_SECRET = 'global-secret-0123456789abcdef';

async function configWithRoutes(): Promise<string> {
  const dir = home();
  writeFileSync(
    join(dir, 'config.yaml'),
    [
      'platforms:',
      '  webhook:',
      '    enabled: true',
      '    extra:',
      '      host: 127.0.0.1',
      `      port: ${await closedPort()}`,
      `      secret: ${GLOBAL_SECRET}`,
      '      routes:',
      '        stripe-events:',
      `          secret: ${ROUTE_SECRET}`,
      '          source: stripe',
      '          events: [invoice.paid]',
      '        builds:',
      '          events: [push, pull_request]',
      '        old:',
      '          enabled: false',
      'store:',
      '  backend: sqlite',
      '',
    ].join('\n'),
  );
  const subscribed = await runCli(['webhook', 'subscribe', 'alerts', '--events', 'alert', '--json'], dir);
  expect(subscribed.code).toBe(0);
  return dir;
}

describe('hookwise routes list', () => {
  it('lists static routes and subscriptions with source, events, destination and secret origin, never a secret', async () => {
    const dir = await configWithRoutes();
    const subscriptionSecret = (JSON.parse(readFileSync(join(dir, 'webhook_subscriptions.json'), 'utf8')) as Record<string, { secret: string }>).alerts.secret;
    const table = await runCli(['routes', 'list', '--wide'], dir);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^NAME\s+ORIGIN\s+STATUS\s+SOURCE\s+EVENTS\s+DELIVER\s+SECRET\s+RUNS THIS HOUR\s+TOKENS TODAY\s+URL$/m);
    // No gateway runs and the store was never opened: nothing counted, and listing does not create the store.
    expect(table.stdout).toMatch(
      /^stripe-events\s+static\s+active\s+stripe\s+invoice\.paid\s+log\s+route's own\s+-\s+-\s+http:\/\/127\.0\.0\.1:\d+\/webhooks\/stripe-events$/m,
    );
    expect(existsSync(join(dir, 'hookwise.sqlite'))).toBe(false);
    expect(table.stdout).toMatch(/^builds\s+static\s+active\s+any\s+push,pull_request\s+log\s+global\s+/m);
    expect(table.stdout).toMatch(/^old\s+static\s+disabled\s+/m);
    expect(table.stdout).toMatch(/^alerts\s+subscription\s+active\s+any\s+alert\s+log\s+subscription's own\s+/m);

    const json = await runCli(['routes', 'list', '--json'], dir);
    const routes = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(routes.map((r) => [r.name, r.origin, r.secret])).toEqual([
      ['stripe-events', 'static', 'route'],
      ['builds', 'static', 'global'],
      ['old', 'static', 'global'],
      ['alerts', 'subscription', 'subscription'],
    ]);
    for (const output of [table.stdout, json.stdout, table.stderr, json.stderr]) {
      for (const secret of [ROUTE_SECRET, GLOBAL_SECRET, subscriptionSecret]) expect(output).not.toContain(secret);
    }
  });
});

describe('hookwise doctor', () => {
  it('prints a table of every check; a failing route or platform makes it exit 1, and --json says the same', async () => {
    const dir = await configWithRoutes();
    // A route delivering to a platform that is not enabled, and a .env others can read.
    writeFileSync(
      join(dir, 'config.yaml'),
      readFileSync(join(dir, 'config.yaml'), 'utf8').replace('        old:\n', '        chat:\n          deliver: telegram\n        old:\n'),
    );
    writeFileSync(join(dir, '.env'), 'SOMETHING=1\n');
    chmodSync(join(dir, '.env'), 0o644);
    const table = await runCli(['doctor', '--wide'], dir);
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/^STATUS\s+CHECK\s+DETAIL$/m);
    expect(table.stdout).toMatch(/^OK\s+config\s+.*config\.yaml loads and validates$/m);
    expect(table.stdout).toMatch(/^OK\s+global secret\s+set/m);
    expect(table.stdout).toMatch(/^WARN\s+\.env\s+.*run `chmod 600 /m);
    expect(table.stdout).toMatch(/^OK\s+plugins\s+\d+ loaded/m);
    expect(table.stdout).toMatch(/^OK\s+route 'stripe-events'\s+static, secret: route, deliver: log$/m);
    expect(table.stdout).toMatch(/^FAIL\s+route 'chat'\s+route 'chat' delivers to 'telegram', which is not enabled/m);
    expect(table.stdout).toMatch(/^OK\s+route 'alerts'\s+subscription, secret: subscription/m);
    expect(table.stdout).toMatch(/^WARN\s+agent\s+echo: every answer is the rendered prompt/m);
    expect(table.stdout).toMatch(/^OK\s+store\s+sqlite at .*hookwise\.sqlite: opened and read$/m);
    expect(table.stdout).toMatch(/^OK\s+gateway\s+not running on this config dir/m);
    expect(table.stdout).toContain('1 problem(s) stop the gateway');
    for (const secret of [ROUTE_SECRET, GLOBAL_SECRET]) expect(table.stdout).not.toContain(secret);

    const json = await runCli(['doctor', '--json'], dir);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { ok: boolean; checks: Array<{ check: string; status: string; detail: string; fix?: string }> };
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.check === "route 'chat'")).toMatchObject({ status: 'fail' });
    expect(report.checks.find((c) => c.check === '.env')).toMatchObject({ status: 'warn' });
  });

  it('exits 0 on a healthy config, reports the running gateway, and an enabled platform whose service is unreachable only warns', async () => {
    const dir = home();
    const unreachable = await closedPort();
    writeFileSync(
      join(dir, 'config.yaml'),
      `platforms:\n  webhook:\n    enabled: true\n    extra:\n      host: 127.0.0.1\n      port: 0\n      routes:\n        demo:\n          secret: INSECURE_NO_AUTH\n  telegram:\n    enabled: true\n    token: "123456:doctor-test-token"\n    api_base: http://127.0.0.1:${unreachable}\nstore:\n  backend: memory\n`,
    );
    const gateway = startCli(['gateway', 'run'], dir);
    try {
      await gateway.waitFor(/listening on/);
      const deadline = Date.now() + 5000;
      while (!existsSync(join(dir, 'gateway.run.json')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const result = await runCli(['doctor', '--json'], dir);
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as { ok: boolean; checks: Array<{ check: string; status: string; detail: string }> };
      expect(report.ok).toBe(true);
      expect(report.checks.find((c) => c.check === 'gateway')).toMatchObject({
        status: 'ok',
        detail: expect.stringMatching(/^running \(pid \d+\) at http:\/\/127\.0\.0\.1:\d+: \/health answered 200$/),
      });
      expect(report.checks.find((c) => c.check === "route 'demo'")).toMatchObject({ status: 'warn', detail: expect.stringContaining('INSECURE_NO_AUTH') });
      expect(report.checks.find((c) => c.check === 'store')).toMatchObject({ status: 'warn', detail: expect.stringContaining('memory') });
      expect(report.checks.find((c) => c.check === 'platform telegram')).toMatchObject({
        status: 'warn',
        detail: expect.stringContaining('could not be reached'),
      });
      expect(result.stdout).not.toContain('doctor-test-token');
    } finally {
      await gateway.stop();
    }
  });
});

describe('delivery ids', () => {
  it('deliveries list shows whole ids (a replay is its original plus -replay-<ms>); show and replay take a unique prefix and refuse an ambiguous one', async () => {
    const dir = home();
    writeFileSync(
      join(dir, 'config.yaml'),
      'platforms:\n  webhook:\n    enabled: true\n    extra:\n      host: 127.0.0.1\n      port: 0\n      routes:\n        ci:\n          secret: INSECURE_NO_AUTH\n',
    );
    const gateway = startCli(['gateway', 'run'], dir);
    const longId = 'build-2026-11-23-very-long-delivery-identifier-0123456789';
    try {
      await gateway.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
      const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(gateway.output())![1];
      const answer = await fetch(`http://127.0.0.1:${port}/webhooks/ci`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': longId },
        body: '{"event_type":"build"}',
      });
      expect(answer.status).toBe(202);
      await gateway.waitFor(new RegExp(`delivered ${longId}`));
    } finally {
      await gateway.stop();
    }
    const replay = await runCli(['deliveries', 'replay', longId.slice(0, 12)], dir);
    expect(replay.code).toBe(0);
    const replayId = new RegExp(`as (${longId}-replay-\\d+)`).exec(replay.stdout)![1];
    const list = await runCli(['deliveries', 'list', '--wide'], dir);
    expect(list.stdout).toContain(replayId);
    expect(list.stdout).toMatch(new RegExp(`^${longId}\\s`, 'm'));
    const ambiguous = await runCli(['deliveries', 'show', longId.slice(0, 12)], dir);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr.replace(/\s*›\s*/g, ' ')).toContain(`'${longId.slice(0, 12)}' is the start of 2 delivery ids`);
    const shown = await runCli(['deliveries', 'show', replayId.slice(0, -3)], dir);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`Delivery ${replayId}`);
  });
});
