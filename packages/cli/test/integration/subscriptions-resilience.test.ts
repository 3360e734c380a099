// A broken subscriptions file never takes the gateway down: valid routes keep answering.
// Secrets are 16 characters or more: shorter ones are refused at load (the gateway's secret policy).
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startGateway, type RunningGateway } from '@hookwise/server';
import { distributionOptions } from '../../src/distribution';
import { logCapture, postSigned, tempHome, writeConfig } from '../cli-process';

// Each test starts real processes; on a loaded machine they are slow, so allow more than jest's default.
jest.setTimeout(120_000);

const STATIC_ROUTE = '      routes:\n        fixed:\n          secret: static-route-secret\n';
const BODY = JSON.stringify({ event_type: 'push', ref: 'refs/heads/main' });

function entry(secret: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    events: [],
    secret,
    skills: [],
    deliver: 'log',
    deliver_extra: {},
    created_at: '2024-01-01T00:00:00Z',
    updated_at: '2024-01-01T00:00:00Z',
    ...extra,
  };
}

let home: string;
let running: RunningGateway;
let logs: string[];
const subscriptionsFile = () => join(home, 'webhook_subscriptions.json');
const post = (route: string, secret: string) => postSigned(`${running.url}/webhooks/${route}`, secret, BODY);

beforeEach(() => {
  home = tempHome();
  writeConfig(home, 0, STATIC_ROUTE);
});
afterEach(async () => {
  await running?.close(1000);
  rmSync(home, { recursive: true, force: true });
});

async function start(): Promise<void> {
  const capture = logCapture();
  logs = capture.lines;
  running = await startGateway({ ...(await distributionOptions()), configDir: home, logStream: capture.stream, pollMs: 20 });
}

it('serves every valid route when one subscription entry is invalid, and warns naming it', async () => {
  writeFileSync(
    subscriptionsFile(),
    JSON.stringify({
      good: entry('good-secret-0123456789'),
      broken: entry('broken-secret-0123456789', { events: 'push' }),
      other: entry('other-secret-0123456789'),
    }),
  );
  await start();
  expect((await post('good', 'good-secret-0123456789')).status).toBe(202);
  expect((await post('other', 'other-secret-0123456789')).status).toBe(202);
  expect((await post('fixed', 'static-route-secret')).status).toBe(202);
  expect(await post('broken', 'broken-secret-0123456789')).toEqual({ status: 404, body: { error: 'Unknown route: broken' } });
  const warnings = logs.filter((l) => l.includes("subscription 'broken'"));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain('events: must be array');
});

it('keeps the last good subscriptions when the file is corrupted while running, logging the error once', async () => {
  writeFileSync(subscriptionsFile(), JSON.stringify({ good: entry('good-secret-0123456789') }));
  await start();
  expect((await post('good', 'good-secret-0123456789')).status).toBe(202);
  writeFileSync(subscriptionsFile(), '{"good": {"secret": "good-sec');
  for (let i = 0; i < 3; i++) expect((await post('good', 'good-secret-0123456789')).status).toBe(202);
  expect((await post('fixed', 'static-route-secret')).status).toBe(202);
  const errors = logs.filter((l) => l.includes('does not parse'));
  expect(errors).toHaveLength(1);
  expect(errors[0]).toContain('1 subscription(s) read before stay active');
});

it('starts and serves static routes when the file is corrupt from the beginning', async () => {
  writeFileSync(subscriptionsFile(), 'not json at all');
  await start();
  expect((await post('fixed', 'static-route-secret')).status).toBe(202);
  expect((await post('good', 'good-secret-0123456789')).status).toBe(404);
  // Fixing the file takes effect on the next request.
  writeFileSync(subscriptionsFile(), JSON.stringify({ good: entry('good-secret-0123456789') }));
  expect((await post('good', 'good-secret-0123456789')).status).toBe(202);
});

it('lets a static route win over a subscription of the same name', async () => {
  writeFileSync(subscriptionsFile(), JSON.stringify({ fixed: entry('subscription-secret') }));
  await start();
  expect((await post('fixed', 'subscription-secret')).status).toBe(401);
  expect((await post('fixed', 'static-route-secret')).status).toBe(202);
});
