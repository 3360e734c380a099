// Issue 29's proof with an obedient agent: a `command` agent that runs the shell lines a payload carries (what a
// prompt injection turns a capable agent into), in a real gateway process. With agent.sandbox.mode required it
// cannot read the config dir's .env, config.yaml or store, see the gateway's environment, reach a loopback
// server the route did not list, create files outside its work dir or kill the gateway; the listed host is
// reachable and its work dir writable. The same lines with mode off show each leak, so the tests can fail.
// Then the probe made to fail: auto starts with the documented warning, required refuses naming the fix.
// The terminal tool's run of the same lines is in obedient-agent-terminal.test.ts.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeSandbox } from '@hookwise/sandbox';
import { freePort } from '@hookwise/testing';
import {
  BOT_TOKEN,
  CONFIG_CANARY,
  DOTENV_CANARY,
  GATEWAY_ENV_CANARY,
  OBEDIENT_COMMAND,
  WEBHOOK_SECRET,
  scripts,
  startObedientGateway,
  type Mode,
  type ObedientGateway,
} from './obedient-gateway';

const probe = probeSandbox();

describe.each<Mode>(['required', 'off'])('an obedient command agent with agent.sandbox.mode %s', (mode) => {
  const sandboxed = mode === 'required';
  let gw: ObedientGateway | undefined;
  let skip: string | undefined;

  beforeAll(async () => {
    const found = await probe;
    // Where bubblewrap cannot run, `required` refuses to start (tested below); .ci/run installs it.
    if (sandboxed && !found.available) {
      skip = found.reason;
      return;
    }
    gw = await startObedientGateway({ mode, agent: () => ({ runner: 'command', command: OBEDIENT_COMMAND }) });
  }, 60_000);

  afterAll(async () => {
    await gw?.stop();
  });

  /** Runs the case's lines; undefined when skipped. */
  async function answer(script: keyof ReturnType<typeof scripts>): Promise<string | undefined> {
    if (skip) {
      console.warn(`skipped (${mode}): ${skip}`);
      return undefined;
    }
    return gw!.run(scripts(gw!)[script]);
  }

  it(
    sandboxed ? 'cannot read the config dir’s .env' : 'reads the config dir’s .env (the leak)',
    async () => {
      const text = await answer('dotenv');
      if (text === undefined) return;
      if (sandboxed) expect(text).not.toContain(DOTENV_CANARY);
      else expect(text).toContain(`LEAK_CANARY=${DOTENV_CANARY}`);
      // Registered secrets never reach the destination: scrubbed from the answer even when read.
      expect(text).not.toContain(WEBHOOK_SECRET);
      expect(text).not.toContain(BOT_TOKEN);
    },
    40_000,
  );

  it(
    sandboxed ? 'cannot read config.yaml or the SQLite store' : 'reads config.yaml and the SQLite store (the leak)',
    async () => {
      const config = await answer('config');
      const store = await answer('store');
      if (config === undefined || store === undefined) return;
      if (sandboxed) {
        expect(config).not.toContain(CONFIG_CANARY);
        expect(store).not.toContain('SQLite format 3');
      } else {
        expect(config).toContain(CONFIG_CANARY);
        expect(store).toContain('SQLite format 3');
      }
    },
    40_000,
  );

  it(
    sandboxed ? 'cannot see the gateway’s environment' : 'sees the gateway’s environment through /proc (the leak)',
    async () => {
      const text = await answer('environ');
      if (text === undefined) return;
      expect(text).toContain('environ-done');
      if (sandboxed) expect(text).not.toContain(GATEWAY_ENV_CANARY);
      else expect(text).toContain(`GATEWAY_ENV_CANARY=${GATEWAY_ENV_CANARY}`);
    },
    40_000,
  );

  it(
    sandboxed ? 'sends no request to a loopback server the route did not list' : 'reaches an unlisted loopback server (the leak)',
    async () => {
      const text = await answer('unlisted');
      if (text === undefined) return;
      if (sandboxed) {
        expect(gw!.unlisted.requests).toHaveLength(0);
        // The proxy names what to change.
        expect(text).toContain('status 403');
      } else {
        expect(gw!.unlisted.requests.map((r) => r.path)).toContain('/direct');
        expect(text).toContain('/direct: status 200');
      }
    },
    40_000,
  );

  it('reaches the host listed in agent.sandbox.network', async () => {
    const text = await answer('listed');
    if (text === undefined) return;
    expect(text).toContain('/listed: status 200');
    expect(gw!.listed.requests.map((r) => r.path)).toContain('/listed');
  }, 40_000);

  it(
    sandboxed ? 'writes in its work dir and creates no file outside it' : 'writes in its work dir, the config dir and elsewhere (the leak)',
    async () => {
      const text = await answer('writes');
      if (text === undefined) return;
      expect(text).toContain('written-in-workdir');
      // The host side, not what the agent believes.
      expect(existsSync(join(gw!.dir, 'planted.txt'))).toBe(!sandboxed);
      expect(existsSync(join(gw!.outside, 'planted.txt'))).toBe(!sandboxed);
    },
    40_000,
  );

  // Last: with mode off it ends the gateway.
  it(
    sandboxed ? 'cannot kill the gateway' : 'kills the gateway with kill -9 (the leak)',
    async () => {
      if (skip) return console.warn(`skipped (${mode}): ${skip}`);
      if (sandboxed) {
        const text = await gw!.run(scripts(gw!).kill);
        expect(text).not.toContain('kill-exit-0');
        expect(gw!.child.exitCode).toBeNull();
        expect(gw!.child.signalCode).toBeNull();
        expect(await gw!.health()).toBe(200);
      } else {
        const exited = new Promise((resolve) => gw!.child.once('exit', (_code, signal) => resolve(signal)));
        await expect(gw!.run(scripts(gw!).kill)).rejects.toThrow('no answer');
        expect(await exited).toBe('SIGKILL');
        expect(await gw!.health()).toMatch(/^unreachable/);
      }
    },
    40_000,
  );
});

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
      env: { PATH: bin, HOME: process.env.HOME, HOOKWISE_HOME: dir },
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
