// `hookwise webhook test <route> --now` against a running gateway (the real binary, a real gateway): a route that
// coalesces its events for 5 minutes runs the test at once, while a test without --now, and any other event, waits
// for the window; and a route's sample payload (<config_dir>/samples/<route>.json) is what a test sends by default.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeRunFile } from '@hookwise/gateway';
import { routesConfig, startTestGateway, waitFor, type TestGateway } from '@hookwise/testing';
import { runCli } from '../cli-process';

jest.setTimeout(60_000);

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    config: routesConfig(
      {
        'pr-review': {
          source: 'github',
          secret: 'webhook-test-now-secret-0123456789',
          events: ['pull_request'],
          prompt: 'Review #{pull_request.number}: {pull_request.title}',
          coalesce: { key: '{repository.full_name}#{pull_request.number}', window_seconds: 300 },
          deliver: 'log',
        },
      },
      { agent: { runner: 'echo' }, store: { backend: 'memory' } },
    ),
    pollMs: 40,
  });
  writeRunFile(gw.configDir, { pid: process.pid, url: gw.url, host: '127.0.0.1', port: gw.port, started_at: new Date().toISOString() });
  mkdirSync(join(gw.configDir, 'samples'));
  const sample = { action: 'opened', pull_request: { number: 7, title: 'Fix the build' }, repository: { full_name: 'octo/hello' } };
  writeFileSync(join(gw.configDir, 'samples', 'pr-review.json'), JSON.stringify(sample));
});
afterAll(async () => {
  await gw?.stop();
});

const jobs = () => gw.gateway.store.jobs.list({ limit: 100 });

it("sends the route's sample payload, whose placeholders are all filled, and --now runs it without the coalesce window", async () => {
  const waiting = await runCli(['webhook', 'test', 'pr-review', '--json'], gw.configDir);
  expect(waiting.code).toBe(0);
  expect(JSON.parse(waiting.stdout)).toMatchObject({ status: 202, event: 'pull_request' });
  expect(JSON.parse(waiting.stdout)).not.toHaveProperty('unresolved_placeholders');
  const [held] = await jobs();
  expect(held).toMatchObject({ status: 'pending' });
  expect(held.runAt).toBeGreaterThan(Date.now() + 200_000);

  const now = await runCli(['webhook', 'test', 'pr-review', '--now'], gw.configDir);
  expect(now.code).toBe(0);
  expect(now.stdout).toMatch(/\(event pull_request, payload \S+samples\/pr-review\.json, now: no coalesce window\)/);
  expect(now.stdout).not.toContain('Placeholders:');
  const ran = await waitFor('the --now test delivered', async () => (await jobs()).find((j) => j.status === 'done'), { timeoutMs: 15_000 });
  expect(ran?.answer).toContain('Review #7: Fix the build');
  // The first test still waits for its window: --now is the test's own, not the route's.
  expect((await jobs()).find((j) => j.id === held.id)).toMatchObject({ status: 'pending' });
});
