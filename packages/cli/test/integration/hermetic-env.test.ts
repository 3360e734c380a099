// The developer's own Hookwise setup never reaches a test: the jest setup gives test processes an empty home and
// no HOOKWISE_HOME, and the helpers that start the CLI build its environment (testProcessEnv) instead of passing
// this process's on. A HOOKWISE_HOME or a ~/.hookwise with a broken config in it is not read.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { signGeneric, startTestGateway, testProcessEnv } from '@hookwise/testing';
import { closedPort, runCli, tempHome, writeConfig } from '../cli-process';

const BROKEN = 'platforms: [this is : not yaml\n';
let developer: string;
let own: string;
const saved = { HOOKWISE_HOME: process.env.HOOKWISE_HOME, HOME: process.env.HOME };

beforeAll(async () => {
  // What a developer's shell could hold: HOOKWISE_HOME and ~/.hookwise, each with a config that does not parse.
  developer = mkdtempSync(join(tmpdir(), 'hookwise-developer-'));
  mkdirSync(join(developer, 'home', '.hookwise'), { recursive: true });
  mkdirSync(join(developer, 'hookwise-home'));
  writeFileSync(join(developer, 'home', '.hookwise', 'config.yaml'), BROKEN);
  writeFileSync(join(developer, 'hookwise-home', 'config.yaml'), BROKEN);
  process.env.HOOKWISE_HOME = join(developer, 'hookwise-home');
  process.env.HOME = join(developer, 'home');
  own = tempHome();
  writeConfig(own, await closedPort());
});

afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(developer, { recursive: true, force: true });
  rmSync(own, { recursive: true, force: true });
});

it('the test process starts with no HOOKWISE_HOME and an empty home of its own (the jest setup)', () => {
  expect(saved.HOOKWISE_HOME).toBeUndefined();
  // os.homedir() reads the process's real environment, which the jest setup changed before this process started.
  expect(homedir().startsWith(tmpdir())).toBe(true);
  expect(readdirSync(homedir())).not.toContain('.hookwise');
});

it("runCli gives the CLI the test's config dir, never the HOOKWISE_HOME or the ~ of the process that runs it", async () => {
  const doctor = await runCli(['doctor'], own);
  expect(doctor.stdout).toContain(`Config dir: ${own}`);
  expect(`${doctor.stdout}${doctor.stderr}`).not.toContain(developer);
  const list = await runCli(['webhook', 'list'], own);
  expect({ code: list.code, stderr: list.stderr }).toEqual({ code: 0, stderr: '' });
});

it('testProcessEnv passes on no HOOKWISE_* or WEBHOOK_* variable and gives HOME an empty directory', () => {
  process.env.WEBHOOK_SECRET = 'developer-secret-0123456789';
  try {
    const env = testProcessEnv(own, { OCLIF_COLUMNS: '1000' });
    expect(Object.keys(env).filter((name) => /^(HOOKWISE_|WEBHOOK_)/.test(name))).toEqual(['HOOKWISE_HOME']);
    expect(env.HOOKWISE_HOME).toBe(own);
    expect(env.HOME).not.toBe(process.env.HOME);
    expect(readdirSync(env.HOME!)).toEqual([]);
  } finally {
    delete process.env.WEBHOOK_SECRET;
  }
});

it("an agent run of a test gateway (the harness's own environment) sees neither HOOKWISE_HOME nor the developer's home", async () => {
  const secret = 'hermetic-route-secret-0123456789';
  const gw = await startTestGateway({
    config: {
      platforms: { webhook: { enabled: true, extra: { routes: { agent: { secret, prompt: 'x', deliver: 'log' } } } } },
      agent: { runner: 'command', command: ['sh', '-c', 'cat >/dev/null; echo "home=$HOME hookwise_home=${HOOKWISE_HOME:-unset}"'], sandbox: { mode: 'off' } },
      store: { backend: 'memory' },
    },
    pollMs: 20,
  });
  try {
    const body = '{"event_type":"ping"}';
    expect((await gw.post('agent', body, { 'x-webhook-signature': signGeneric(secret, body) })).status).toBe(202);
    const answered = await gw.waitForLog(/hookwise_home=/);
    expect(String(answered.message)).toContain('hookwise_home=unset');
    expect(gw.fullLogText()).not.toContain(developer);
  } finally {
    await gw.stop();
  }
});
