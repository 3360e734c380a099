// A real gateway process (the built `hookwise gateway run`) delivering to codehost_a_comment through a stand-in
// `gh` on PATH: when the gateway is killed with SIGKILL, the process reaper ends the `gh` it started.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isProcessAlive, webhookPlatformLines } from '@hookwise/testing';

const REPO = resolve(__dirname, '../../../..');
const CLI_BIN = join(REPO, 'packages', 'cli', 'bin', 'run.js');
const built = existsSync(join(REPO, 'packages', 'cli', 'dist')) && existsSync(join(__dirname, '..', '..', 'dist', 'comment-deliverer.js'));
const posix = process.platform !== 'win32' && existsSync('/bin/sh');
const SECRET = 'reaper-test-secret';

if (!built) throw new Error('the gateway is not built: run `npm run build` before this test (it runs the built CLI and plugins)');

async function waitFor(what: string, condition: () => boolean, output: () => string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the gateway said:\n${output() || '(nothing)'}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

(posix ? describe : describe.skip)('codehost_a_comment under a killed gateway', () => {
  let home: string;
  let gateway: ChildProcess | undefined;
  let ghPid: number | undefined;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'hw-gh-reaped-'));
  });

  afterEach(() => {
    // A failed test must not leave its processes behind.
    if (gateway && gateway.exitCode === null && gateway.signalCode === null) gateway.kill('SIGKILL');
    if (ghPid !== undefined && isProcessAlive(ghPid)) process.kill(ghPid, 'SIGKILL');
    rmSync(home, { recursive: true, force: true });
  });

  it('kill -9 of the gateway ends the gh child it was waiting for', async () => {
    const bin = join(home, 'bin');
    mkdirSync(bin);
    const pidFile = join(home, 'gh.pid');
    // The stand-in client records its pid (atomically) and hangs like a `gh` stuck on the network.
    writeFileSync(join(bin, 'gh'), `#!/bin/sh\necho $$ > "${pidFile}.tmp" && mv "${pidFile}.tmp" "${pidFile}"\nexec sleep 300\n`);
    chmodSync(join(bin, 'gh'), 0o755);
    writeFileSync(
      join(home, 'config.yaml'),
      [
        ...webhookPlatformLines({
          review: [
            `secret: ${SECRET}`,
            'prompt: "review {title}"',
            'deliver: codehost_a_comment',
            'deliver_extra:',
            '  repo: acme/widgets',
            '  pr_number: "7"',
          ],
        }),
        'agent:',
        '  runner: command',
        `  command: [${JSON.stringify(process.execPath)}, "-e", "process.stdout.write('looks good')"]`,
        'retry:',
        '  max_attempts: 1',
      ].join('\n'),
    );

    let output = '';
    gateway = spawn(process.execPath, [CLI_BIN, 'gateway', 'run'], {
      env: { ...process.env, HOOKWISE_HOME: home, PATH: `${bin}:${process.env.PATH ?? ''}`, WEBHOOK_PORT: '', WEBHOOK_SECRET: '', WEBHOOK_ENABLED: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    gateway.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    gateway.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const listening = /listening on (http:\/\/127\.0\.0\.1:\d+)/;
    await waitFor(
      'the gateway to listen',
      () => listening.test(output),
      () => output,
    );

    const body = JSON.stringify({ title: 'Fix the widget' });
    const answer = await fetch(`${listening.exec(output)![1]}/webhooks/review`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': createHmac('sha256', SECRET).update(body).digest('hex') },
      body,
    });
    expect(answer.status).toBe(202);

    await waitFor(
      'the gateway to start gh',
      () => existsSync(pidFile),
      () => output,
    );
    ghPid = Number(readFileSync(pidFile, 'utf8'));
    expect(isProcessAlive(ghPid)).toBe(true);
    // runProcess tells the reaper about the group in the tick of the spawn; gh writing its pid takes longer,
    // but a moment's margin keeps a loaded machine off the gap documented in process-reaper.ts.
    await new Promise((r) => setTimeout(r, 200));

    const exited = new Promise((done) => gateway!.once('exit', done));
    gateway.kill('SIGKILL');
    await exited;
    const pid = ghPid;
    await waitFor(
      `gh (pid ${pid}) to end after the gateway's kill -9`,
      () => !isProcessAlive(pid),
      () => output,
      5_000,
    );
  }, 60_000);
});
