// The obedient agent: a shell that runs whatever a payload says, which is what a prompt injection turns a
// capable agent into. Each case runs with mode `required` (the sandbox holds) and mode `off` (the same
// command shows the leak, so the test can fail).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EgressProxy, openSandboxRun, probeSandbox, resolveSandboxPolicy, type SandboxDecision, type SandboxMode, type SandboxRun } from '../../src';
import { fetchScript, runShell, serve, shq, tempDir, type Served } from '../helpers';

const bwrap = spawnSync('sh', ['-c', 'command -v bwrap']).stdout.toString().trim();
const describeWithBwrap = bwrap ? describe : describe.skip;
if (!bwrap) console.warn('sandbox tests skipped: bubblewrap (bwrap) is not installed; apt-get install bubblewrap (CI installs it)');

const SECRET = `WEBHOOK_SECRET=obedient-${process.pid}-s3cr3t-value`;
const MARKER_NAME = 'HW_SANDBOX_TEST_GATEWAY_ONLY';
const MARKER = `gateway-env-${process.pid}-marker`;

describeWithBwrap.each<[SandboxMode]>([['required'], ['off']])('an obedient agent with agent.sandbox.mode %s', (mode) => {
  const sandboxed = mode === 'required';
  let decision: SandboxDecision;
  let root: string;
  let configDir: string;
  let workDir: string;
  let proxy: EgressProxy;
  let listed: Served;
  let unlisted: Served;
  let run: SandboxRun;
  const refusals: string[] = [];

  beforeAll(async () => {
    decision = resolveSandboxPolicy(mode, await probeSandbox());
    root = tempDir('agent');
    configDir = join(root, 'config');
    mkdirSync(configDir);
    writeFileSync(join(configDir, '.env'), `${SECRET}\n`);
    writeFileSync(join(configDir, 'config.yaml'), 'routes: {}\n');
    workDir = join(root, 'work');
    mkdirSync(workDir);
    listed = await serve('listed');
    unlisted = await serve('admin-api');
    proxy = await EgressProxy.start({ logger: { warn: (message, meta) => refusals.push(`${message} ${JSON.stringify(meta)}`) } });
    run = await openSandboxRun({
      decision,
      proxy,
      label: `job-${mode}`,
      network: [`127.0.0.1:${listed.port}`],
      workDir,
      // The parent of the config dir is readable: the hidden dir must stay hidden under it.
      readOnly: [root],
      hidden: [configDir],
    });
  });

  afterAll(async () => {
    await run?.close();
    await proxy?.close();
    await listed?.close();
    await unlisted?.close();
    rmSync(root, { recursive: true, force: true });
  });

  test(`${sandboxed ? 'cannot' : 'can'} read the config dir's .env and config.yaml`, async () => {
    const out = await runShell(run, `cat ${shq(join(configDir, '.env'))}; ls ${shq(configDir)}`);
    if (sandboxed) {
      expect(out.stdout).not.toContain(SECRET);
      expect(out.stdout).not.toContain('config.yaml');
    } else {
      expect(out.stdout).toContain(SECRET);
      expect(out.stdout).toContain('config.yaml');
    }
  });

  test(`${sandboxed ? 'cannot' : 'can'} read the gateway's environment through /proc`, async () => {
    // /proc/<pid>/environ is the environment a process started with: a stand-in gateway process gets the marker.
    const gateway = spawn('sleep', ['30'], { stdio: 'ignore', env: { [MARKER_NAME]: MARKER } });
    try {
      const out = await runShell(
        run,
        `cat /proc/${gateway.pid}/environ /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c ${MARKER_NAME}=${MARKER}; echo done`,
      );
      expect(out.stdout).toContain('done');
      expect(out.stdout.startsWith('0\n')).toBe(sandboxed);
    } finally {
      gateway.kill('SIGKILL');
    }
  });

  test(`${sandboxed ? 'sends no request to' : 'reaches'} a loopback server the route did not list`, async () => {
    const url = `http://127.0.0.1:${unlisted.port}/admin?token=t0ps3cret`;
    const direct = `node -e ${shq(fetchScript(url).replace('process.env.HTTP_PROXY?', 'false?'))}`;
    const proxied = `node -e ${shq(fetchScript(url))}`;
    const out = await runShell(run, `${direct}; ${proxied}`);
    if (sandboxed) {
      expect(unlisted.requests).toEqual([]);
      expect(out.stdout).toContain('ERROR ECONNREFUSED');
      expect(out.stdout).toContain(`STATUS 403 hookwise sandbox proxy: refused: 127.0.0.1:${unlisted.port} is not in this route's agent.sandbox.network list`);
      expect(refusals.join('\n')).toContain(`"host":"127.0.0.1","port":${unlisted.port}`);
      expect(refusals.join('\n')).not.toContain('t0ps3cret');
    } else {
      expect(unlisted.requests).toContain('GET /admin?token=t0ps3cret');
    }
  });

  test('reaches the loopback server the route listed', async () => {
    const out = await runShell(run, `node -e ${shq(fetchScript(`http://127.0.0.1:${listed.port}/hello?x=1`))}`);
    expect(out.stdout).toContain('STATUS 200 listed saw /hello?x=1');
  });

  test(`${sandboxed ? 'creates no file' : 'creates files'} outside its work dir`, async () => {
    const inConfig = join(configDir, 'webhook_subscriptions.json');
    const beside = join(root, 'planted');
    await runShell(run, `echo '{"backdoor":{}}' > ${shq(inConfig)}; touch ${shq(beside)}; touch /tmp/inside-only`);
    expect(existsSync(inConfig)).toBe(!sandboxed);
    expect(existsSync(beside)).toBe(!sandboxed);
  });

  test('writes in its work dir, which is its cwd and HOME', async () => {
    const out = await runShell(run, 'echo result > answer.txt && pwd && echo "home=$HOME"');
    expect(out.code).toBe(0);
    expect(readFileSync(join(workDir, 'answer.txt'), 'utf8')).toBe('result\n');
    expect(out.stdout).toContain(workDir);
    if (sandboxed) expect(out.stdout).toContain(`home=${workDir}`);
  });

  test(`${sandboxed ? 'cannot' : 'can'} kill a process of the gateway`, async () => {
    const victim: ChildProcess = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const out = await runShell(run, `kill -9 ${victim.pid}; echo "kill=$?"`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (sandboxed) {
        expect(out.stdout).toContain('kill=1');
        expect(victim.exitCode).toBeNull();
        expect(victim.signalCode).toBeNull();
      } else {
        expect(out.stdout).toContain('kill=0');
        expect(victim.signalCode).toBe('SIGKILL');
      }
    } finally {
      victim.kill('SIGKILL');
    }
  });

  if (sandboxed) {
    test('has no capabilities, so it cannot unmount the mask over the hidden dir', async () => {
      const caps = await runShell(run, 'grep CapEff /proc/self/status');
      expect(caps.stdout).toMatch(/CapEff:\s+0+\n/);
      const out = await runShell(run, `umount ${shq(configDir)}; umount -l ${shq(configDir)}; cat ${shq(join(configDir, '.env'))}; echo done`);
      expect(out.stdout).toContain('done');
      expect(out.stdout).not.toContain(SECRET);
    });
  }
});
