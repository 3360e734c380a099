// Profile isolation in real bubblewrap: an obedient agent of profile beta (a shell running what it is told) tries to
// read profile acme's .env, config.yaml, subscriptions, agent home and a live work dir, with the whole test tree
// listed as agent.sandbox.read_only (the worst an operator could allow), and finds none of them; its own home works.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Job } from '@hookwise/core';
import { probeSandbox } from '@hookwise/sandbox';
import { loadConfig } from '../../src/config/load';
import { createServices, type GatewayServices } from '../../src/gateway-services';
import { createLogger } from '../../src/observe/logger';
import type { Route } from '../../src/routes/routes';

const CANARY = { env: 'acme-env-canary-51f0', config: 'acme-config-canary-77c2', subs: 'acme-subs-canary-0b9e', home: 'acme-home-canary-3d4a' };
const WORK_CANARY = 'acme-work-canary-9e13';

let root: string;
let acme: GatewayServices;
let beta: GatewayServices;

function services(configDir: string, profile: string | undefined, env: NodeJS.ProcessEnv): GatewayServices {
  const loaded = loadConfig({ configDir, env, profile });
  const logger = createLogger({ stream: new Writable({ write: (_c, _e, done) => done() }), format: 'json' });
  return createServices({ config: loaded.config, configDir: loaded.configDir, env: loaded.env, profile: loaded.profile, logger });
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'hw-profile-sandbox-'));
  const configDir = join(root, 'config');
  const data = join(root, 'data');
  const global = {
    platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1' } } },
    agent: { runner: 'echo', sandbox: { mode: 'required', read_only: [root] } },
  };
  mkdirSync(configDir, { recursive: true });
  writeFileSync(join(configDir, 'config.yaml'), JSON.stringify(global));
  writeFileSync(join(configDir, '.env'), 'GLOBAL_TOKEN=global-env-canary-aa01\n');
  for (const name of ['acme', 'beta']) {
    const dir = join(configDir, 'profiles', name);
    mkdirSync(dir, { recursive: true });
    const own = { platforms: { webhook: { extra: { routes: { ci: { secret: `${name}-secret-0123456789abcdef`, deliver: 'log' } } } } } };
    writeFileSync(join(dir, 'config.yaml'), `${JSON.stringify(own)}\n# ${name === 'acme' ? CANARY.config : ''}\n`);
    writeFileSync(join(dir, '.env'), name === 'acme' ? `ACME_KEY=${CANARY.env}\n` : 'BETA_KEY=beta\n');
    writeFileSync(join(dir, 'webhook_subscriptions.json'), JSON.stringify({ note: name === 'acme' ? CANARY.subs : '' }));
    mkdirSync(join(data, 'profiles', name, 'agent-homes', 'ci', 'claude'), { recursive: true });
  }
  writeFileSync(join(data, 'profiles', 'acme', 'agent-homes', 'ci', 'claude', 'session.json'), CANARY.home);
  const env = { PATH: process.env.PATH, HOOKWISE_DATA_DIR: data };
  acme = services(configDir, 'acme', env);
  beta = services(configDir, 'beta', env);
});

afterAll(async () => {
  await acme?.sandboxes.close();
  await beta?.sandboxes.close();
  rmSync(root, { recursive: true, force: true });
});

const route = { name: 'ci' } as Route;
const job = (id: string) => ({ id, deliveryId: id }) as Job;

it('keeps an agent of profile beta from every file of profile acme, while its own home stays usable', async () => {
  const probe = await probeSandbox();
  if (!probe.available) return console.warn(`skipped: ${probe.reason}`);
  const data = join(root, 'data');
  const acmeDir = join(root, 'config', 'profiles', 'acme');
  // A live run of acme: its work dir holds a file while beta's agent looks for it.
  const acmeRun = await acme.sandboxes.open(route, job('acme-1'), undefined, []);
  const betaHome = join(data, 'profiles', 'beta', 'agent-homes', 'ci', 'claude');
  const betaRun = await beta.sandboxes.open(route, job('beta-1'), { writable: [betaHome], home: betaHome }, []);
  try {
    const acmePlan = acmeRun.sandbox.plan('/bin/sh', ['-c', `echo ${WORK_CANARY} > ./work.txt; pwd`], { PATH: '/usr/bin:/bin' });
    const acmeWork = spawnSync(acmePlan.command, acmePlan.args, { env: acmePlan.env, cwd: acmePlan.cwd, encoding: 'utf8' }).stdout.trim();
    expect(acmeWork).not.toBe('');
    const script = [
      `cat ${join(acmeDir, '.env')} ${join(acmeDir, 'config.yaml')} ${join(acmeDir, 'webhook_subscriptions.json')}`,
      `cat ${join(root, 'config', '.env')}`,
      `cat ${join(data, 'profiles', 'acme', 'agent-homes', 'ci', 'claude', 'session.json')}`,
      `grep -r . ${data} ${join(root, 'config')} ${acmeWork}`,
      `cat ${acmeWork}/work.txt`,
      'echo mine > "$HOME/own.txt" && cat "$HOME/own.txt"',
      'echo done',
    ].join('; ');
    const plan = betaRun.sandbox.plan('/bin/sh', ['-c', `exec 2>&1; ${script}`], { PATH: '/usr/bin:/bin' });
    const out = spawnSync(plan.command, plan.args, { env: plan.env, cwd: plan.cwd, encoding: 'utf8' }).stdout;
    expect(betaRun.sandbox.sandboxed).toBe(true);
    expect(out).toContain('done');
    for (const canary of [...Object.values(CANARY), WORK_CANARY, 'global-env-canary-aa01']) expect(out).not.toContain(canary);
    // Its own home, below the masked data dir, is bound back: writable and readable.
    expect(out).toContain('mine');
  } finally {
    await betaRun.close();
    await acmeRun.close();
  }
});
