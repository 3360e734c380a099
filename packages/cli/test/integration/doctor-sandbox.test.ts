// `hookwise doctor` says which sandbox mode each route's runs get and why, and what a preset adds (issue 29).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { runDoctor } from '../../src/doctor-checks';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hw-doctor-sandbox-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it("lists each route's sandbox mode with its reason, and the network hosts and login dirs the claude preset adds", async () => {
  const config = {
    platforms: {
      webhook: {
        enabled: true,
        extra: {
          host: '127.0.0.1',
          routes: {
            review: { secret: 'doctor-sandbox-secret-0123456789' },
            loose: { secret: 'doctor-sandbox-secret-0123456789', agent: { runner: 'command', preset: 'claude', sandbox: { mode: 'off' } } },
          },
        },
      },
    },
    agent: { runner: 'command', preset: 'claude', sandbox: { network: ['api.github.com'] } },
    store: { backend: 'memory' },
  };
  writeFileSync(join(dir, 'config.yaml'), stringifyYaml(config));
  const checks = await runDoctor({ rootDir: dir, dir }, { PATH: process.env.PATH, HOME: '/home/doctor-test' });
  const review = checks.find((c) => c.check === "sandbox of route 'review'");
  expect(review?.detail).toMatch(/^mode auto: /);
  expect(review?.detail).toContain('the runner adds network api.anthropic.com');
  expect(review?.detail).toContain('agent-homes/review/claude');
  const loose = checks.find((c) => c.check === "sandbox of route 'loose'");
  expect(loose).toMatchObject({ status: 'warn', detail: expect.stringContaining("mode off: route 'loose' agent.sandbox.mode is off") });
});
