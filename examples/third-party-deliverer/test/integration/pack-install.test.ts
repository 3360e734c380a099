// Packs every Hookwise package and this example plugin with `npm pack`, installs the tarballs into a temporary
// project outside the workspace (no workspace links), and runs the installed `hookwise` binary: `plugins list`
// reads the third-party manifest, and a gateway loads `file-drop` from config by its short name and delivers a
// signed webhook's answer to a file. Needs the build (`npm run build`) and the npm cache or registry for
// third-party dependencies.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

const run = promisify(execFile);
const root = join(TEST_DIR, '..', '..', '..');
const SECRET = 'pack-install-secret';

// Every workspace package: @hookwise/server depends on all first-party plugins, so packing them all is the honest test.
const packageDirs = [
  ...['packages', 'plugins'].flatMap((group) =>
    readdirSync(join(root, group))
      .map((name) => join(root, group, name))
      .filter((dir) => existsSync(join(dir, 'package.json')) && !JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private),
  ),
  join(root, 'examples', 'third-party-deliverer'),
];

let work: string;
let project: string;
let gateway: ChildProcess | undefined;

beforeAll(async () => {
  for (const dir of packageDirs) {
    if (existsSync(join(dir, 'tsconfig.json')) && !existsSync(join(dir, 'dist', 'index.js'))) throw new Error(`${dir} is not built: run npm run build first`);
  }
  work = mkdtempSync(join(tmpdir(), 'hookwise-pack-install-'));
  const tarballs = join(work, 'tarballs');
  project = join(work, 'project');
  mkdirSync(tarballs);
  mkdirSync(project);
  const { stdout } = await run('npm', ['pack', ...packageDirs, '--pack-destination', tarballs, '--json', '--silent'], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  const packed = JSON.parse(stdout) as Array<{ name: string; filename: string; files: Array<{ path: string }> }>;
  expect(packed.map((p) => p.name)).toEqual(expect.arrayContaining(['@hookwise/core', '@hookwise/server', '@hookwise/cli', 'hookwise-plugin-file-drop']));
  for (const p of packed) {
    const files = p.files.map((f) => f.path);
    expect({ name: p.name, license: files.includes('LICENSE'), packageJson: files.includes('package.json') }).toEqual({
      name: p.name,
      license: true,
      packageJson: true,
    });
    // No sources, tests or build info in a published package.
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/') || f.endsWith('.tsbuildinfo'))).toEqual([]);
  }
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'hookwise-consumer', private: true }));
  await run(
    'npm',
    ['install', ...readdirSync(tarballs).map((f) => join(tarballs, f)), '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'],
    {
      cwd: project,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
}, 240_000);

afterAll(async () => {
  if (gateway && gateway.exitCode === null) {
    const exited = new Promise((resolve) => gateway!.once('exit', resolve));
    gateway.kill('SIGTERM');
    await exited;
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

const bin = () => join(project, 'node_modules', '.bin', 'hookwise');
const env = (configDir: string): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: work, HOOKWISE_HOME: configDir });

function writeConfig(configDir: string, answersDir: string): void {
  mkdirSync(configDir, { recursive: true });
  const config = {
    plugins: ['file-drop'],
    platforms: {
      file_drop: { dir: answersDir },
      webhook: {
        enabled: true,
        extra: {
          host: '127.0.0.1',
          port: 0,
          routes: { ci: { secret: SECRET, prompt: 'Build {build.id} is {build.status}', deliver: 'file_drop', deliver_extra: { subdir: '{repository}' } } },
        },
      },
    },
    agent: {
      runner: 'command',
      command: [process.execPath, '-e', "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write('Agent says: '+s))"],
    },
    store: { backend: 'memory' },
    log: { format: 'json' },
  };
  writeFileSync(join(configDir, 'config.yaml'), JSON.stringify(config, null, 2));
}

describe('packed packages installed outside the workspace', () => {
  it('are real copies, not links into the workspace', () => {
    for (const name of ['@hookwise/core', '@hookwise/server', '@hookwise/cli', '@hookwise/plugin-source-generic', 'hookwise-plugin-file-drop']) {
      const dir = join(project, 'node_modules', name);
      expect(lstatSync(dir).isSymbolicLink()).toBe(false);
      expect(realpathSync(dir).startsWith(realpathSync(root))).toBe(false);
    }
    // One copy of core: the plugin's peer dependency is satisfied by the gateway's own.
    expect(existsSync(join(project, 'node_modules', 'hookwise-plugin-file-drop', 'node_modules'))).toBe(false);
  });

  it('`hookwise plugins list --json` shows the third-party plugin from its manifest', async () => {
    const configDir = join(work, 'list-config');
    writeConfig(configDir, join(work, 'unused'));
    const { stdout } = await run(bin(), ['plugins', 'list', '--json'], { cwd: project, env: env(configDir) });
    const listed = JSON.parse(stdout) as Array<{ spec: string; name?: string; source: string; contributes: unknown[]; problem?: string }>;
    expect(listed.find((p) => p.spec === 'file-drop')).toMatchObject({
      name: 'hookwise-plugin-file-drop',
      source: 'config',
      contributes: [{ kind: 'deliverer', id: 'file_drop' }],
    });
    expect(listed.find((p) => p.name === '@hookwise/plugin-source-generic')).toMatchObject({
      source: 'first-party',
      contributes: [{ kind: 'source', id: 'generic' }],
    });
    expect(listed.filter((p) => p.problem)).toEqual([]);
    // Listing never creates the answers directory: no plugin code ran.
    expect(existsSync(join(work, 'unused'))).toBe(false);
  });

  it('runs a gateway that loads file-drop by its short name and delivers a signed webhook to it', async () => {
    const configDir = join(work, 'config');
    const answers = join(work, 'answers');
    writeConfig(configDir, answers);
    gateway = spawn(bin(), ['gateway', 'run'], { cwd: project, env: env(configDir), stdio: ['ignore', 'pipe', 'pipe'] });
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
    const delivered = lineMatching(/answer written to ([^"\\]+)/);

    const body = JSON.stringify({ event_type: 'build', build: { id: 42, status: 'green' }, repository: 'acme/api' });
    const signature = createHmac('sha256', SECRET).update(body).digest('hex');
    const res = await fetch(`${url}/webhooks/ci`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': signature, 'x-request-id': 'pack-1' },
      body,
    });
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ status: 'accepted', route: 'ci', delivery_id: 'pack-1' });

    const forged = await fetch(`${url}/webhooks/ci`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': '0'.repeat(64) },
      body,
    });
    expect(forged.status).toBe(401);

    const [, file] = await delivered;
    expect(file).toBe(join(answers, 'acme_api', 'pack-1.md'));
    expect(readFileSync(file, 'utf8')).toBe('<!-- route: ci, event: build, delivery: pack-1 -->\nAgent says: Build 42 is green\n');
  });
});
