// Issue 29's proof with an obedient agent: a `command` agent that runs the shell lines a payload carries (what a
// prompt injection turns a capable agent into), in a real gateway process. With agent.sandbox.mode required it
// cannot read the config dir's .env, config.yaml or store, see the gateway's environment, reach a loopback
// server the route did not list, create files outside its work dir or kill the gateway; the listed host is
// reachable and its work dir writable. The same lines with mode off show each leak, so the tests can fail.
// Then the probe made to fail: auto starts with the documented warning, required refuses naming the fix.
// The terminal tool's run of the same lines is in obedient-agent-terminal.test.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyHome, freePort } from '@hookwise/testing';
import { obedientCases } from './obedient-cases';
import { OBEDIENT_COMMAND, startObedientGateway } from './obedient-gateway';

obedientCases('an obedient command agent', (mode) => startObedientGateway({ mode, agent: () => ({ runner: 'command', command: OBEDIENT_COMMAND }) }));

describe('the probe fails (no bubblewrap on PATH)', () => {
  /** Starts a gateway whose PATH holds no bwrap; resolves when it listens or exits. */
  async function startWithoutBwrap(mode: 'auto' | 'required'): Promise<{ output: string; exitCode: number | null; stop(): Promise<void> }> {
    const dir = mkdtempSync(join(tmpdir(), 'hw-obedient-noprobe-'));
    // An empty dir as the whole PATH: the gateway starts node by its absolute path, so only the probe notices.
    const bin = mkdtempSync(join(tmpdir(), 'hw-obedient-nobwrap-'));
    const port = await freePort();
    const config = {
      platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', port, routes: { probe: { secret: 'INSECURE_NO_AUTH' } } } } },
      agent: { runner: 'command', command: OBEDIENT_COMMAND, sandbox: { mode } },
      store: { backend: 'memory' },
    };
    writeFileSync(join(dir, 'config.yaml'), JSON.stringify(config));
    const child = spawn(process.execPath, [join(__dirname, '..', '..', '..', 'cli', 'bin', 'run.js'), 'gateway', 'run', '--log-format', 'json'], {
      env: { PATH: bin, HOME: emptyHome(), HOOKWISE_HOME: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 30_000;
    while (!output.includes('listening on') && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (child.exitCode === null && !output.includes('listening on')) child.kill('SIGKILL');
    const exitCode = output.includes('listening on') ? null : await exited;
    return {
      output,
      exitCode,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          await exited;
        }
        rmSync(dir, { recursive: true, force: true });
        rmSync(bin, { recursive: true, force: true });
      },
    };
  }

  it('auto: the gateway starts, warning that agent runs go unsandboxed and what to install', async () => {
    const started = await startWithoutBwrap('auto');
    try {
      expect(started.exitCode).toBeNull();
      expect(started.output).toContain(
        'agent processes run UNSANDBOXED (agent.sandbox.mode auto): bubblewrap (bwrap) is not on PATH; to sandbox them: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap',
      );
    } finally {
      await started.stop();
    }
  }, 40_000);

  it('required: the gateway refuses to start, naming the missing piece and the fix', async () => {
    const started = await startWithoutBwrap('required');
    try {
      expect(started.exitCode).not.toBe(0);
      expect(started.exitCode).not.toBeNull();
      expect(started.output).not.toContain('listening on');
      // The CLI wraps its error message to the terminal's width behind ' ›' marks: read it as one line.
      const said = started.output.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' ');
      expect(said).toContain('agent.sandbox.mode is required but the sandbox is unavailable: bubblewrap (bwrap) is not on PATH; to fix: install bubblewrap');
      expect(said).toContain('apt-get install bubblewrap');
    } finally {
      await started.stop();
    }
  }, 40_000);
});
