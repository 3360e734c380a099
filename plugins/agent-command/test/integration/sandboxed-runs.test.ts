// The command runner inside a real gateway with the agent sandbox (issue 29, real bubblewrap): an obedient agent
// that tries to read the config dir's secrets cannot, and runs in its own work dir; with mode off it can (so the
// test can fail). Skipped where bubblewrap cannot run (the probe says why).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { probeSandbox } from '@hookwise/sandbox';
import type { RunningGateway } from '@hookwise/server';
import { createLogger, Redactor } from '@hookwise/gateway';
import { createCommandRunner, type CommandRunnerOptions } from '@hookwise/plugin-agent-command';
import { gatewayOnce } from './gateway-once';

let dir: string;
let tools: string;
let running: RunningGateway | undefined;
let logs = '';

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-sandboxed-config-'));
  tools = mkdtempSync(join(tmpdir(), 'hw-sandboxed-tools-'));
  writeFileSync(join(dir, '.env'), 'WEBHOOK_SECRET=config-dir-secret-value-1234\n');
  logs = '';
});

afterEach(async () => {
  await running?.close(1000);
  running = undefined;
  rmSync(dir, { recursive: true, force: true });
  rmSync(tools, { recursive: true, force: true });
});

// What a prompt injection makes of an agent: it reads whatever it is told to, and reports it.
const OBEDIENT = `
const fs = require('fs');
const tryRead = (file) => { try { return fs.readFileSync(file, 'utf8'); } catch (err) { return 'refused: ' + err.code; } };
process.stdin.resume();
process.stdin.on('end', () => {});
process.stdout.write(JSON.stringify({
  cwd: process.cwd(),
  env: tryRead(process.argv[2] + '/.env'),
  config: tryRead(process.argv[2] + '/config.yaml'),
  home: process.env.HOOKWISE_HOME ?? null,
}));
`;

async function runOnce(mode: 'required' | 'off'): Promise<{ cwd: string; env: string; config: string; home: string | null; usage: unknown }> {
  const agent = join(tools, 'agent.js');
  writeFileSync(agent, OBEDIENT);
  const config = {
    platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', routes: { ci: { secret: 'INSECURE_NO_AUTH' } } } } },
    agent: { runner: 'command', command: [process.execPath, agent, dir], sandbox: { mode, read_only: [tools] } },
    store: { backend: 'memory' },
  };
  const gateway = await gatewayOnce(dir, config, { PATH: process.env.PATH });
  running = gateway.running;
  const job = await gateway.post('obedient-1');
  logs = gateway.logs();
  if (job.status === 'dead') throw new Error(`the job died: ${JSON.stringify(job.errors)}`);
  return { ...JSON.parse(job.answer!), usage: job.usage };
}

const probe = probeSandbox();

describe('command runner in the agent sandbox', () => {
  it('mode required: cannot read the config dir (.env, config.yaml), runs in its own work dir, and the run says it was sandboxed', async () => {
    const found = await probe;
    if (!found.available) return console.warn(`skipped: ${found.reason}`);
    const seen = await runOnce('required');
    expect(seen.env).not.toContain('config-dir-secret-value-1234');
    expect(seen.config).not.toContain('runner: command');
    expect(seen.cwd).not.toBe(dir);
    expect(seen.cwd).toMatch(/hookwise-job-/);
    expect(seen.home).toBeNull();
    expect(seen.usage).toMatchObject({ sandbox: { mode: 'required', sandboxed: true, reason: expect.stringContaining('bubblewrap') } });
    expect(logs).toContain("route 'ci': agent sandbox required: sandboxed");
    expect(readFileSync(join(dir, '.env'), 'utf8')).toContain('config-dir-secret-value-1234');
  });

  it('mode off: the same agent reads the config dir (what the sandbox stops), though it still starts in a fresh work dir', async () => {
    const seen = await runOnce('off');
    // Read (the stored answer is scrubbed of the secret, but the file's contents came out).
    expect(seen.env).toMatch(/^WEBHOOK_SECRET=/);
    expect(seen.cwd).not.toBe(dir);
    expect(seen.usage).toMatchObject({ sandbox: { mode: 'off', sandboxed: false, reason: expect.stringContaining('mode is off') } });
  });

  it('refuses a cwd that is the config dir or inside it (the issue: runners started in the config dir)', () => {
    const redactor = new Redactor();
    const ctx = {
      logger: createLogger({ stream: new PassThrough(), redactor }),
      configDir: dir,
      env: {},
      signal: new AbortController().signal,
      redact: () => undefined,
    };
    const options = (cwd: string) => ({ command: ['true'], cwd, inherit_env: false, kill_grace_seconds: 1, max_output_bytes: 1024 }) as CommandRunnerOptions;
    for (const cwd of ['.', dir, 'work']) expect(() => createCommandRunner(options(cwd), ctx)).toThrow(/config dir.*never see/);
    expect(() => createCommandRunner(options(tools), ctx)).not.toThrow();
  });
});
