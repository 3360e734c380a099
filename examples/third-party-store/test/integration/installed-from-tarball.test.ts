// Packs @hookwise/core, the ES-module-only example plugin (examples/esm-plugin) and this example store with
// `npm pack`, installs the tarballs into a temporary config dir with npm (offline: none has a registry
// dependency), and then: the installed store, named by `store.backend`, passes describeStoreContract in-process
// (opened the way the gateway opens it), and a real `hookwise gateway run` (the workspace CLI, a child process)
// imports the ESM plugin from the config dir by its short name, keeps its jobs in the installed store, and
// `hookwise deliveries list` reads them back from it. Needs the build (`npm run build`).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createLogger, loadConfig, openConfiguredStore } from '@hookwise/gateway';
import { describeStoreContract } from '@hookwise/testing';
import type { Job } from '@hookwise/core';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

const run = promisify(execFile);
const root = join(TEST_DIR, '..', '..', '..');
const CLI_BIN = join(root, 'packages', 'cli', 'bin', 'run.js');
const SECRET = 'esm-and-store-secret';
const STORE = 'hookwise-store-jsonfile';

let work: string;
let configDir: string;
let gateway: ChildProcess | undefined;

const config = {
  // The short name: the loader tries esm-drop, hookwise-plugin-esm-drop, @hookwise/plugin-esm-drop.
  plugins: ['esm-drop'],
  platforms: {
    esm_drop: { dir: 'answers' },
    webhook: {
      enabled: true,
      extra: { host: '127.0.0.1', port: 0, routes: { ci: { secret: SECRET, prompt: 'Build {build.id} is {build.status}', deliver: 'esm_drop' } } },
    },
  },
  agent: { runner: 'echo' },
  // Not a store id the gateway knows: loaded as a package from the config dir; `file` is the store's own option.
  store: { backend: STORE, file: 'jobs.json' },
  log: { format: 'json' },
};

beforeAll(async () => {
  for (const dir of ['packages/core', 'packages/gateway', 'packages/cli']) {
    if (!existsSync(join(root, dir, 'dist', 'index.js'))) throw new Error(`${dir} is not built: run npm run build first`);
  }
  work = mkdtempSync(join(tmpdir(), 'hookwise-esm-store-'));
  configDir = join(work, 'config');
  const tarballs = join(work, 'tarballs');
  mkdirSync(configDir);
  mkdirSync(tarballs);
  const dirs = ['packages/core', 'examples/esm-plugin', 'examples/third-party-store'].map((d) => join(root, d));
  const { stdout } = await run('npm', ['pack', ...dirs, '--pack-destination', tarballs, '--json', '--silent'], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  const packed = JSON.parse(stdout) as Array<{ name: string; filename: string }>;
  expect(packed.map((p) => p.name).sort()).toEqual(['@hookwise/core', 'hookwise-plugin-esm-drop', STORE]);
  // A package.json of its own, so npm installs here and not into a project above the temp dir.
  writeFileSync(join(configDir, 'package.json'), JSON.stringify({ name: 'hookwise-config', private: true }));
  writeFileSync(join(configDir, 'config.yaml'), JSON.stringify(config, null, 2));
  await run(
    'npm',
    ['install', ...packed.map((p) => join(tarballs, p.filename)), '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'],
    {
      cwd: configDir,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
}, 120_000);

afterAll(async () => {
  if (gateway && gateway.exitCode === null) {
    const exited = new Promise((resolve) => gateway!.once('exit', resolve));
    gateway.kill('SIGTERM');
    await exited;
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('packages installed into the config dir from their tarballs', () => {
  it('are real copies, with their own @hookwise/core next to them', () => {
    for (const name of ['@hookwise/core', 'hookwise-plugin-esm-drop', STORE])
      expect(lstatSync(join(configDir, 'node_modules', name)).isSymbolicLink()).toBe(false);
  });
});

// Each case opens a fresh file through the gateway's own store step: config -> loader -> the package's `store`
// contribution -> its optionsSchema -> create(). Node's own require loads it: jest's would map the package name to
// examples/third-party-store (a jest root) instead of the installed copy, which loads its installed @hookwise/core.
let opened = 0;
const quiet = createLogger({ level: 'error', silent: true });
describeStoreContract(`${STORE} installed in the config dir, named by store.backend`, async () => {
  const loaded = loadConfig({ configDir, env: {} });
  loaded.config.plugins = [];
  loaded.config.store.file = join('contract', `store-${(opened += 1)}.json`);
  const requireFn = createRequire(join(configDir, 'package.json'));
  return (await openConfiguredStore(loaded, { firstParty: [], logger: quiet, loader: { requireFn } })).store;
});

describe('hookwise plugins list with the installed packages', () => {
  it('shows the ESM plugin and the store package named by store.backend from their manifests, without running them', async () => {
    const { stdout } = await run(process.execPath, [CLI_BIN, 'plugins', 'list', '--json'], {
      cwd: work,
      env: { PATH: process.env.PATH, HOME: work, HOOKWISE_HOME: configDir },
    });
    const listed = JSON.parse(stdout) as Array<{ spec: string; name?: string; source: string; contributes: unknown[]; problem?: string }>;
    expect(listed.find((p) => p.spec === 'esm-drop')).toMatchObject({
      name: 'hookwise-plugin-esm-drop',
      source: 'config',
      contributes: [{ kind: 'deliverer', id: 'esm_drop' }],
    });
    expect(listed.find((p) => p.spec === STORE)).toMatchObject({ name: STORE, source: 'store.backend', contributes: [{ kind: 'store', id: 'jsonfile' }] });
    expect(listed.filter((p) => p.problem)).toEqual([]);
  });
});

describe('hookwise gateway run with the installed packages', () => {
  it('imports the ESM plugin by its short name, delivers through it, and keeps the job in the installed store', async () => {
    const env = { PATH: process.env.PATH, HOME: work, HOOKWISE_HOME: configDir };
    gateway = spawn(process.execPath, [CLI_BIN, 'gateway', 'run'], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const lineMatching = (pattern: RegExp) =>
      new Promise<RegExpMatchArray>((resolve, reject) => {
        const check = () => {
          const match = output.match(pattern);
          if (match) resolve(match);
        };
        gateway!.stdout!.on('data', (chunk: Buffer) => {
          output += chunk.toString('utf8');
          check();
        });
        gateway!.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
        gateway!.once('exit', (code) => reject(new Error(`gateway exited with ${code} before ${pattern}:\n${output}`)));
        check();
      });
    const [, url] = await lineMatching(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect(output).toContain(`jsonfile store at ${join(configDir, 'jobs.json')}`);
    const delivered = lineMatching(/esm_drop: answer written to ([^"\\]+)/);

    const body = JSON.stringify({ event_type: 'build', build: { id: 42, status: 'green' } });
    const signature = createHmac('sha256', SECRET).update(body).digest('hex');
    const res = await fetch(`${url}/webhooks/ci`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': signature, 'x-request-id': 'esm-1' },
      body,
    });
    expect(res.status).toBe(202);

    const [, file] = await delivered;
    expect(file).toBe(join(configDir, 'answers', 'esm-1.txt'));
    expect(readFileSync(file, 'utf8')).toBe('Build 42 is green\n');

    const exited = new Promise((resolve) => gateway!.once('exit', resolve));
    gateway.kill('SIGTERM');
    expect(await exited).toBe(0);

    // The job lives in the third-party store's file, done, with the ESM deliverer's receipt...
    const saved = JSON.parse(readFileSync(join(configDir, 'jobs.json'), 'utf8')) as { jobs: Job[] };
    expect(saved.jobs.find((j) => j.deliveryId === 'esm-1')).toMatchObject({ status: 'done', answer: 'Build 42 is green', receipt: { target: file } });
    // ...and the CLI finds it there too: `deliveries` opens the store the way the gateway does.
    const { stdout } = await run(process.execPath, [CLI_BIN, 'deliveries', 'list', '--json'], { cwd: work, env });
    expect((JSON.parse(stdout) as Job[]).map((j) => [j.deliveryId, j.status])).toEqual([['esm-1', 'done']]);
  }, 60_000);
});
