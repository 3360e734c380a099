// End to end: the real `hookwise` binary against a real running gateway, no restart between the steps.
import { rmSync } from 'node:fs';
import { startGateway, type RunningGateway } from '@hookwise/server';
import { distributionOptions } from '../../src/distribution';
import { githubFixture } from '@hookwise/testing';
import { logCapture, postSigned, runCli, tempHome, writeConfig } from '../cli-process';

// Each test starts real processes; on a loaded machine they are slow, so allow more than jest's default.
jest.setTimeout(120_000);

const PUSH = githubFixture('push').toString('utf8');
const STATIC_ROUTE = '      routes:\n        fixed:\n          secret: static-route-secret\n';

let home: string;
let running: RunningGateway;
let logs: string[];

beforeAll(async () => {
  home = tempHome();
  writeConfig(home, 0, STATIC_ROUTE);
  const capture = logCapture();
  logs = capture.lines;
  running = await startGateway({ ...(await distributionOptions()), configDir: home, logStream: capture.stream, pollMs: 20 });
  // The CLI reads the port from config.yaml: give it the one the gateway really got.
  writeConfig(home, running.port, STATIC_ROUTE);
});

afterAll(async () => {
  await running?.close(1000);
  rmSync(home, { recursive: true, force: true });
});

describe('hookwise webhook against a running gateway', () => {
  let url: string;
  let secret: string;

  it('subscribe prints the URL and a generated secret, and the gateway accepts a POST signed with it at once', async () => {
    const result = await runCli(['webhook', 'subscribe', 'ci-push', '--events', 'push', '--description', 'CI pushes', '--json'], home);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as { url: string; secret: string; created: boolean; events: string[] };
    expect(out).toMatchObject({ created: true, events: ['push'], url: `${running.url}/webhooks/ci-push` });
    expect(out.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    ({ url, secret } = out);

    const accepted = await postSigned(url, secret, PUSH, { 'x-codehosta-event': 'push', 'x-codehosta-delivery': 'e2e-1' });
    expect(accepted).toEqual({ status: 202, body: { status: 'accepted', route: 'ci-push', event: 'push', delivery_id: 'e2e-1' } });
    const rejected = await postSigned(url, 'not-the-secret', PUSH, { 'x-codehosta-event': 'push' });
    expect(rejected).toEqual({ status: 401, body: { error: 'Invalid signature' } });
    expect(logs.join('\n')).toContain("Invalid signature on route 'ci-push'");
    expect(logs.join('\n')).not.toContain(secret);
  });

  it('list shows the subscription (never its secret) and test reaches it with an accepted event', async () => {
    const [table, json, test, ignored] = await Promise.all([
      runCli(['webhook', 'list'], home),
      runCli(['webhook', 'list', '--json'], home),
      runCli(['webhook', 'test', 'ci-push'], home),
      runCli(['webhook', 'test', 'ci-push', '--event', 'issues', '--payload', '{"action":"opened"}'], home),
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/NAME\s+STATUS\s+MADE BY\s+EVENTS\s+DELIVER/);
    expect(table.stdout).toMatch(/ci-push\s+active\s+operator\s+push\s+log/);
    expect(table.stdout).not.toContain(secret);

    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ name: 'ci-push', status: 'active', events: ['push'], description: 'CI pushes', url, deliver: 'log' }),
    ]);
    expect(json.stdout).not.toContain(secret);

    expect(test.code).toBe(0);
    expect(test.stdout).toContain('HTTP 202');
    expect(test.stdout).toContain('"status": "accepted"');
    expect(test.stdout).toContain('"event": "push"');

    // An explicit event the route does not accept: the gateway's answer is shown, with a hint.
    expect(ignored.code).toBe(0);
    expect(ignored.stdout).toContain('HTTP 200');
    expect(ignored.stdout).toContain('"status": "ignored"');
    expect(ignored.stdout).toContain('pass --event');
  });

  it('test also signs for a static route', async () => {
    const result = await runCli(['webhook', 'test', 'fixed', '--json'], home);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 202, body: { status: 'accepted', route: 'fixed' } });
  });

  it('remove makes the route answer 404 without a restart', async () => {
    const removed = await runCli(['webhook', 'remove', 'ci-push'], home);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("Subscription 'ci-push' removed");
    const gone = await postSigned(url, secret, PUSH, { 'x-codehosta-event': 'push' });
    expect(gone).toEqual({ status: 404, body: { error: 'Unknown route: ci-push' } });
  });

  it('remove of a missing name or of a static route says so and exits 1', async () => {
    const [missing, fixed] = await Promise.all([runCli(['webhook', 'remove', 'ci-push'], home), runCli(['webhook', 'remove', 'fixed'], home)]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no subscription named 'ci-push'");
    expect(fixed.code).toBe(1);
    expect(fixed.stderr).toMatch(/'fixed' is a static route in .*config\.yaml, not a subscription/);
  });
});
