// agent.sandbox at startup (issue 29): each route's mode logged with its reason, a machine without the sandbox
// (the probe made to fail) warned about once under auto and refused under required with the fix, bad network
// entries refused naming the route, and the run's mode stored with its usage.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { definePlugin, type AgentTask } from '@hookwise/core';
import { INSTALL_FIX, type SandboxProbe } from '@hookwise/sandbox';
import { validateConfigObject } from '../../src/config/load';
import { Gateway } from '../../src/gateway';
import { createLogger } from '../../src/observe/logger';
import { createMemoryStore } from '../../src/stores/memory';
import { sandboxText, usageText } from '../../src/jobs/job-facts';

const MISSING: SandboxProbe = { available: false, reason: 'bubblewrap (bwrap) is not on PATH', fix: INSTALL_FIX };

const seen: AgentTask[] = [];
const plugin = definePlugin({
  meta: { name: 'agent-sandbox-test', version: '1.0.0', api: 2 },
  contributes: [
    {
      kind: 'agent',
      id: 'recorder',
      create: () => ({
        run: async (task) => {
          seen.push(task);
          return { text: 'ok' };
        },
      }),
    },
  ],
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-agent-sandbox-'));
  seen.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function gatewayWith(agent: Record<string, unknown>, routeAgent: Record<string, unknown> | undefined, probe?: SandboxProbe) {
  const lines: Array<{ level: string; message: string }> = [];
  const stream = new Writable({
    write(chunk, _e, done) {
      for (const raw of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(raw) as { level: string; message: string });
      done();
    },
  });
  const route = { secret: 'INSECURE_NO_AUTH', deliver: 'log', ...(routeAgent ? { agent: routeAgent } : {}) };
  const config = validateConfigObject({
    platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', routes: { ci: route, docs: { secret: 'INSECURE_NO_AUTH', deliver: 'log' } } } } },
    agent: { runner: 'recorder', ...agent },
  });
  const gateway = new Gateway({
    config,
    configDir: dir,
    store: createMemoryStore(),
    logger: createLogger({ stream, format: 'json', level: 'debug' }),
    plugins: [{ plugin, source: 'test', options: {} }],
    pollMs: 20,
    sandbox: probe ? { probe: async () => probe } : undefined,
  });
  return { gateway, lines };
}

describe('agent.sandbox at startup', () => {
  it('auto on a machine without the sandbox: starts, warns once naming what to install, logs each route with its reason', async () => {
    const { gateway, lines } = gatewayWith({}, undefined, MISSING);
    await gateway.start();
    await gateway.stop(100);
    const warnings = lines.filter((l) => l.level === 'warn' && l.message.includes('UNSANDBOXED'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0].message).toContain('apt-get install bubblewrap');
    expect(warnings[0].message).toContain('routes: ci, docs');
    expect(lines.some((l) => l.message.startsWith("route 'ci': agent sandbox auto: agent processes run UNSANDBOXED"))).toBe(true);
  });

  it("required on a machine without the sandbox: refuses to start, naming the route's key, what is missing and the fix", async () => {
    const { gateway } = gatewayWith({}, { runner: 'recorder', sandbox: { mode: 'required' } }, MISSING);
    const error = await gateway.start().catch((e: Error) => e);
    await gateway.stop(100);
    expect(String(error)).toContain("route 'ci' agent.sandbox.mode is required but the sandbox is unavailable: bubblewrap (bwrap) is not on PATH");
    expect(String(error)).toContain('apt-get install bubblewrap');
  });

  it('mode off in the route overrides required in the global block, key by key', async () => {
    const { gateway, lines } = gatewayWith(
      { sandbox: { mode: 'required' } },
      { runner: 'recorder', sandbox: { mode: 'off' } },
      { available: true, bwrapPath: '/usr/bin/bwrap', reason: 'bubblewrap at /usr/bin/bwrap works' },
    );
    await gateway.start();
    await gateway.stop(100);
    expect(lines.some((l) => l.message.startsWith("route 'ci': agent sandbox off:"))).toBe(true);
    expect(lines.some((l) => l.message.startsWith("route 'docs': agent sandbox required: sandboxed"))).toBe(true);
  });

  it('refuses a malformed network entry naming the route', async () => {
    const { gateway } = gatewayWith({}, { runner: 'recorder', sandbox: { network: ['http://api.example.com/v1'] } }, MISSING);
    const error = await gateway.start().catch((e: Error) => e);
    await gateway.stop(100);
    expect(String(error)).toContain("route 'ci' agent.sandbox.network");
  });

  it('hands each run a sandbox with a fresh work dir outside the config dir, and stores its mode and reason with the job', async () => {
    const { gateway } = gatewayWith({ sandbox: { mode: 'off' } }, undefined);
    await gateway.start();
    const accepted = await gateway.pipeline.handle({
      route: 'ci',
      headers: { 'content-type': 'application/json', 'x-request-id': 'sb-1' },
      body: Buffer.from('{}'),
    });
    expect(accepted.status).toBe(202);
    let job;
    for (let i = 0; i < 200 && job?.status !== 'done'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      [job] = await gateway.store.jobs.list({ limit: 1 });
    }
    await gateway.stop(100);
    expect(seen).toHaveLength(1);
    expect(seen[0].sandbox).toMatchObject({ mode: 'off', sandboxed: false });
    expect(seen[0].sandbox!.workDir.startsWith(dir)).toBe(false);
    expect(job?.usage).toEqual({ sandbox: { mode: 'off', sandboxed: false, reason: expect.stringContaining('agent.sandbox.mode is off') } });
    // What deliveries show, the admin API and the dashboard say of the run; no token line for a run without usage.
    expect(sandboxText(job?.usage)).toMatch(/^UNSANDBOXED \(mode off\): agent.sandbox.mode is off/);
    expect(usageText(job?.usage)).toBeUndefined();
  });
});
