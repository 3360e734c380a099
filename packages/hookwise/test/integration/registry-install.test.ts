// `npm install -g hookwise` from a real npm registry: a verdaccio (v5, which runs on Node 20) started here on a
// free loopback port, storage in a temp dir and no uplinks, gets every Hookwise package published with
// `npm publish --workspaces` and every third-party package of the lockfile's runtime closure (tarballs from the
// npm cache, published over the registry's own API). Then npm installs `hookwise` into an empty prefix from that
// registry alone, and the installed `hookwise gateway setup --yes`, `webhook subscribe` and `gateway run` answer
// a signed webhook and deliver it. better-sqlite3's native binary comes from a local prebuild mirror
// (prebuild-install's documented binary_host setting) holding the one `npm ci` compiled, as an offline site's
// mirror would; without it npm compiles it from source (about 80 s more here). Needs `npm run build`.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

const run = promisify(execFile);
const ROOT = join(TEST_DIR, '..', '..', '..');
// The whole install must stay well inside CI's budget for one test.
const TIME_BOX_MS = 180_000;
jest.setTimeout(TIME_BOX_MS);

interface LockEntry {
  version?: string;
  dev?: boolean;
  link?: boolean;
  os?: string[];
  cpu?: string[];
}

/** Third-party packages a production install needs: the lockfile's non-dev entries that fit this machine. */
function runtimeThirdParty(): Array<{ name: string; version: string; installedAt: string }> {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const seen = new Map<string, { name: string; version: string; installedAt: string }>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.includes('node_modules/') || entry.link || entry.dev || !entry.version) continue;
    if (entry.os && !entry.os.includes(process.platform)) continue;
    if (entry.cpu && !entry.cpu.includes(process.arch)) continue;
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    if (name === 'hookwise' || name.startsWith('@hookwise/')) continue;
    seen.set(`${name}@${entry.version}`, { name, version: entry.version, installedAt: join(ROOT, path) });
  }
  return [...seen.values()];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(check: () => Promise<boolean> | boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Publishes one tarball through the registry API, as `npm publish <tarball>` does (one HTTP PUT per package). */
async function publishTarball(registry: string, tarball: Buffer, manifest: Record<string, unknown>, integrity: string, shasum: string): Promise<void> {
  const name = String(manifest.name);
  const version = String(manifest.version);
  const file = `${name.split('/').pop()}-${version}.tgz`;
  const document = {
    _id: name,
    name,
    'dist-tags': { latest: version },
    versions: { [version]: { ...manifest, _id: `${name}@${version}`, dist: { integrity, shasum, tarball: `${registry}/${name}/-/${file}` } } },
    _attachments: { [file]: { content_type: 'application/octet-stream', data: tarball.toString('base64'), length: tarball.length } },
  };
  const response = await fetch(`${registry}/${name.replace('/', '%2f')}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(document),
  });
  if (!response.ok) throw new Error(`publishing ${name}@${version} failed: ${response.status} ${await response.text()}`);
}

let work: string;
let verdaccio: ChildProcess | undefined;
let mirror: Server | undefined;
let gateway: ChildProcess | undefined;
const timings: Record<string, number> = {};

afterAll(async () => {
  for (const child of [gateway, verdaccio]) {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
  await new Promise((resolve) => (mirror ? mirror.close(resolve) : resolve(undefined)));
  if (work) rmSync(work, { recursive: true, force: true });
  // One line for the CI log: where the time went.
  process.stdout.write(`registry install timings (ms): ${JSON.stringify(timings)}\n`);
});

it('npm install -g hookwise from a local registry gives a hookwise that sets up, runs and answers a signed webhook', async () => {
  const started = Date.now();
  const lap = (what: string) => (timings[what] = Date.now() - started);
  for (const dir of ['packages/cli', 'packages/gateway', 'packages/hookwise', 'plugins/source-generic']) {
    if (!existsSync(join(ROOT, dir, 'dist', 'index.js'))) throw new Error(`${dir} is not built: run npm run build first`);
  }
  work = mkdtempSync(join(tmpdir(), 'hookwise-registry-'));
  const port = await freePort();
  const registry = `http://127.0.0.1:${port}`;
  writeFileSync(
    join(work, 'verdaccio.yaml'),
    [
      `storage: ${join(work, 'storage')}`,
      'auth:',
      '  htpasswd:',
      `    file: ${join(work, 'htpasswd')}`,
      'uplinks: {}',
      'packages:',
      "  '**':",
      '    access: $all',
      '    publish: $all',
      'web:',
      '  enable: false',
      'max_body_size: 200mb',
      'log: { type: stdout, format: pretty, level: error }',
      '',
    ].join('\n'),
  );
  let registryLog = '';
  verdaccio = spawn(
    process.execPath,
    [join(ROOT, 'node_modules', 'verdaccio', 'bin', 'verdaccio'), '--config', join(work, 'verdaccio.yaml'), '--listen', `127.0.0.1:${port}`],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  verdaccio.stdout!.on('data', (chunk: Buffer) => (registryLog += chunk.toString()));
  verdaccio.stderr!.on('data', (chunk: Buffer) => (registryLog += chunk.toString()));
  await waitFor(async () => (await fetch(`${registry}/-/ping`)).ok, `verdaccio on ${registry}:\n${registryLog}`, 30_000);
  lap('registry up');

  // Third-party packages first, so that every dependency of ours resolves on a registry without uplinks.
  const thirdParty = runtimeThirdParty();
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const packed = JSON.parse(
    (
      await run(
        'npm',
        ['pack', ...thirdParty.map((p) => `${p.name}@${p.version}`), '--pack-destination', tarballs, '--prefer-offline', '--json', '--loglevel=error'],
        {
          cwd: work,
          maxBuffer: 256 * 1024 * 1024,
        },
      )
    ).stdout,
  ) as Array<{ name: string; version: string; filename: string; integrity: string; shasum: string }>;
  const installedAt = new Map(thirdParty.map((p) => [`${p.name}@${p.version}`, p.installedAt]));
  const queue = [...packed];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        // The manifest as published: the package.json npm ci unpacked from that very tarball.
        const manifest = JSON.parse(readFileSync(join(installedAt.get(`${next.name}@${next.version}`)!, 'package.json'), 'utf8')) as Record<string, unknown>;
        await publishTarball(registry, readFileSync(join(tarballs, next.filename)), manifest, next.integrity, next.shasum);
      }
    }),
  );
  lap(`${packed.length} third-party packages published`);

  // Ours, with the real client: every public workspace, prepack scripts included (the CLI's oclif manifest).
  const published = await run(
    'npm',
    ['publish', '--workspaces', '--registry', registry, `--//127.0.0.1:${port}/:_authToken=hookwise-test`, '--loglevel=error'],
    {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const ours = published.stdout.split('\n').filter((line) => line.startsWith('+ '));
  expect(ours).toEqual(
    expect.arrayContaining([
      '+ hookwise@0.1.0',
      '+ @hookwise/cli@0.1.0',
      '+ @hookwise/gateway@0.1.0',
      '+ @hookwise/plugin-source-github@0.1.0',
      '+ @hookwise/store-sqlite@0.1.0',
    ]),
  );
  lap(`${ours.length} hookwise packages published`);

  // The prebuild mirror: better-sqlite3's binary as `npm ci` built it, at the path prebuild-install asks for.
  const sqliteDir = join(ROOT, 'node_modules', 'better-sqlite3');
  const binary = join(sqliteDir, 'build', 'Release', 'better_sqlite3.node');
  const mirrored: string[] = [];
  const installEnv: NodeJS.ProcessEnv = { ...process.env, HOME: work, npm_config_cache: join(work, 'npm-cache') };
  for (const key of Object.keys(installEnv)) if (key.startsWith('npm_') && key !== 'npm_config_cache') delete installEnv[key];
  if (existsSync(binary)) {
    const archive = join(work, 'better-sqlite3-prebuilt.tar.gz');
    await run('tar', ['-czf', archive, '-C', sqliteDir, 'build/Release/better_sqlite3.node']);
    const bytes = readFileSync(archive);
    mirror = createServer((req, res) => {
      mirrored.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': bytes.length }).end(bytes);
    });
    await new Promise<void>((resolve) => mirror!.listen(0, '127.0.0.1', resolve));
    installEnv.npm_config_better_sqlite3_binary_host = `http://127.0.0.1:${(mirror.address() as AddressInfo).port}`;
  }
  // The user's npm config (~/.npmrc: nodedir for native builds) still applies; HOME only keeps ~/.hookwise away. The
  // jest setup gives every test an empty HOME and keeps the user's npm config in npm_config_userconfig.
  installEnv.npm_config_userconfig = process.env.npm_config_userconfig ?? join(process.env.HOME ?? '/root', '.npmrc');

  const prefix = join(work, 'prefix');
  mkdirSync(prefix);
  await run('npm', ['install', '-g', '--prefix', prefix, 'hookwise', '--registry', registry, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: work,
    env: installEnv,
    maxBuffer: 64 * 1024 * 1024,
    timeout: TIME_BOX_MS,
  });
  lap('npm install -g hookwise');
  const installed = join(prefix, 'lib', 'node_modules', 'hookwise');
  // Real directories from the registry, not links into this repository.
  expect(lstatSync(installed).isDirectory()).toBe(true);
  expect(lstatSync(join(installed, 'node_modules', '@hookwise', 'cli')).isSymbolicLink()).toBe(false);
  expect(JSON.parse(readFileSync(join(installed, 'node_modules', '@hookwise', 'cli', 'package.json'), 'utf8')).version).toBe('0.1.0');
  // No package commits a LICENSE: each one's prepack copies the root one into its tarball (scripts/pack-license.js).
  const license = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
  for (const dir of [installed, ...['cli', 'gateway', 'plugin-source-github', 'store-sqlite'].map((p) => join(installed, 'node_modules', '@hookwise', p))]) {
    expect({ dir, license: existsSync(join(dir, 'LICENSE')) && readFileSync(join(dir, 'LICENSE'), 'utf8') === license }).toEqual({ dir, license: true });
  }
  if (mirror) expect(mirrored).toEqual([expect.stringMatching(/better-sqlite3-v[\d.]+-node-v\d+-linux-x64\.tar\.gz$/)]);

  // The installed program, as a user runs it: its own bin on PATH, a fresh config dir.
  const home = join(work, 'home');
  const env: NodeJS.ProcessEnv = { PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, HOME: work, HOOKWISE_HOME: home };
  const gatewayPort = await freePort();
  const setup = await run('hookwise', ['gateway', 'setup', '--yes', '--host', '127.0.0.1', '--port', String(gatewayPort)], { env });
  expect(setup.stdout).toContain(`Webhook adapter enabled on port ${gatewayPort}`);
  const subscribed = JSON.parse(
    (await run('hookwise', ['webhook', 'subscribe', 'ci', '--events', 'push', '--prompt', 'Push to {ref}', '--json'], { env })).stdout,
  ) as { secret: string; url: string };
  expect(subscribed.url).toBe(`http://127.0.0.1:${gatewayPort}/webhooks/ci`);

  gateway = spawn('hookwise', ['gateway', 'run'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  gateway.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  gateway.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  await waitFor(() => log.includes('listening on'), `the installed gateway to listen:\n${log}`, 30_000);
  const body = JSON.stringify({ event_type: 'push', ref: 'refs/heads/main' });
  const answer = await fetch(subscribed.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-webhook-signature': createHmac('sha256', subscribed.secret).update(body).digest('hex'),
      'x-request-id': 'registry-install-1',
    },
    body,
  });
  expect(answer.status).toBe(202);
  expect(await answer.json()).toEqual({ status: 'accepted', route: 'ci', event: 'push', delivery_id: 'registry-install-1' });
  await waitFor(() => log.includes('delivered registry-install-1'), `the delivery:\n${log}`, 30_000);
  expect(log).toContain('Push to refs/heads/main');
  expect(log).not.toContain(subscribed.secret);
  // The default store is SQLite: the native module loaded.
  expect(existsSync(join(home, 'hookwise.sqlite'))).toBe(true);
  const exited = new Promise<number | null>((resolve) => gateway!.once('exit', (code) => resolve(code)));
  gateway.kill('SIGTERM');
  expect(await exited).toBe(0);
  lap('installed gateway answered');
  expect(Date.now() - started).toBeLessThan(TIME_BOX_MS);
});
