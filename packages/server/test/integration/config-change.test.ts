// Issue 20 item 10: config.yaml edited while the gateway runs is not reloaded, and the log says so (with whether
// the new file loads), on change and on SIGHUP, which no longer ends the process. Real HTTP, a real process.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startTestGateway, testProcessEnv, type TestGateway } from '@hookwise/testing';

const CLI = join(__dirname, '..', '..', '..', 'cli', 'bin', 'run.js');
const yaml = (port: number, rateLimit: number) =>
  `platforms:\n  webhook:\n    enabled: true\n    extra:\n      host: 127.0.0.1\n      port: ${port}\n      rate_limit: ${rateLimit}\n      routes:\n        dev:\n          secret: INSECURE_NO_AUTH\nstore:\n  backend: memory\n`;

describe('issue 20 item 10: config.yaml changes while running', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.stop();
  });

  it('logs once per change that a restart is needed and whether the new file loads; the running config stays', async () => {
    gw = await startTestGateway({ config: yaml(0, 1) });
    const file = join(gw.configDir, 'config.yaml');
    writeFileSync(file, yaml(0, 100));
    const changed = String((await gw.waitForLog('differs from the one the gateway started with', 15_000)).message);
    expect(changed).toContain(
      'the running gateway keeps the configuration it started with (config.yaml is not reloaded) — restart the gateway to apply it; the new file loads',
    );
    // Still the limit it started with.
    expect((await gw.post('dev', '{}')).status).toBe(202);
    expect((await gw.post('dev', '{}')).status).toBe(429);

    writeFileSync(file, 'platforms: [this is not: valid\n');
    const broken = String((await gw.waitForLog('would not load', 15_000)).message);
    expect(broken).toContain('restart the gateway to apply it; the new file would not load (');
    expect(gw.logs.filter((l) => String(l.message).includes('differs from the one the gateway started with'))).toHaveLength(2);
  }, 40_000);

  it('answers SIGHUP with that log line instead of dying (real `hookwise gateway run` process)', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hookwise-sighup-'));
    const port = await freePort();
    writeFileSync(join(home, 'config.yaml'), yaml(port, 30));
    const child = spawn(process.execPath, [CLI, 'gateway', 'run', '--log-format', 'json'], {
      env: testProcessEnv(home),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const waitFor = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no '${text}' in the gateway's output within 20 s:\n${output}`)), 20_000);
        const check = () => {
          if (!output.includes(text)) return;
          clearTimeout(timer);
          resolve();
        };
        child.stdout.on('data', (c: Buffer) => {
          output += c.toString();
          check();
        });
        child.stderr.on('data', (c: Buffer) => (output += c.toString()));
        check();
      });
    try {
      await waitFor('listening on');
      child.kill('SIGHUP');
      await waitFor('SIGHUP received');
      expect(output).toContain('is the one the gateway started with; nothing to apply');
      writeFileSync(join(home, 'config.yaml'), yaml(port, 31));
      child.kill('SIGHUP');
      await waitFor('SIGHUP received: ');
      await waitFor('restart the gateway to apply it');
      expect(child.exitCode).toBeNull();
      expect(await (await fetch(`http://127.0.0.1:${port}/health`)).json()).toEqual({ status: 'ok', platform: 'webhook' });
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(home, { recursive: true, force: true });
    }
  }, 60_000);
});
