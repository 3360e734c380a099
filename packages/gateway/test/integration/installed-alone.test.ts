// @hookwise/gateway is a library that depends on no plugin: packed with `npm pack` (with @hookwise/core and
// @hookwise/sandbox, its workspace dependencies) and installed alone into an empty directory, it brings no plugin package and no native
// module, and a program there runs a gateway with a plugin it defines in code. Its third-party dependencies come
// from the local npm cache, which `npm ci` filled, and from the registry only for what that cache lacks
// (`--prefer-offline`: with HOME set elsewhere, npm's cache is an empty ~/.npm there). Needs `npm run build`.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..', '..', '..');
const SECRET = 'installed-alone-secret-0123456789';
jest.setTimeout(120_000);

/** Every file and folder below `dir`, as paths relative to it (symlinks not followed). */
function walk(dir: string, base = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(dir, base), { withFileTypes: true })) {
    const path = join(base, entry.name);
    found.push(path);
    if (entry.isDirectory()) found.push(...walk(dir, path));
  }
  return found;
}

// The embedding program: a source defined in code (hex HMAC-SHA256 of the body in X-Test-Signature), the memory
// store, the built-in echo agent and log deliverer, served by node:http on port 0.
const EMBED = `
const { createHmac, timingSafeEqual } = require('node:crypto');
const { createServer } = require('node:http');
const { definePlugin } = require('@hookwise/core');
const { openGateway } = require('@hookwise/gateway');

const signatureSource = definePlugin({
  meta: { name: 'in-code-source', version: '1.0.0', api: 2 },
  contributes: [{
    kind: 'source',
    id: 'in-code',
    create: () => ({
      headers: ['x-test-signature'],
      verify(req, secrets) {
        const given = Buffer.from(String(req.headers['x-test-signature'] ?? ''));
        if (!given.length) return { ok: false, reason: 'no X-Test-Signature', missing: true };
        const index = secrets.findIndex((secret) => {
          const expected = Buffer.from(createHmac('sha256', secret).update(req.rawBody).digest('hex'));
          return expected.length === given.length && timingSafeEqual(expected, given);
        });
        return index === -1 ? { ok: false, reason: 'signature does not match' } : { ok: true, secretIndex: index };
      },
    }),
  }],
});

(async () => {
  const opened = await openGateway(process.argv[2], { plugins: [{ plugin: signatureSource, source: 'in code', options: {} }], logFormat: 'json' });
  await opened.start();
  const server = createServer((req, res) => opened.gateway.handler(req, res));
  server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ listening: server.address().port })));
  process.once('SIGTERM', () => opened.close(2000).then(() => server.close(() => process.exit(0))));
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
`;

const CONFIG = {
  platforms: {
    webhook: {
      enabled: true,
      extra: { routes: { deploys: { source: 'in-code', secret: SECRET, prompt: 'deployed {service}', deliver: 'log' } } },
    },
  },
  agent: { runner: 'echo' },
  store: { backend: 'memory' },
};

let work: string;
let child: ChildProcess | undefined;

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

it('installs alone with no plugin and no native module, and serves a plugin given in code', async () => {
  for (const dir of ['packages/core', 'packages/sandbox', 'packages/gateway']) {
    if (!existsSync(join(ROOT, dir, 'dist', 'index.js'))) throw new Error(`${dir} is not built: run npm run build first`);
  }
  work = mkdtempSync(join(tmpdir(), 'hookwise-gateway-alone-'));
  const tarballs = join(work, 'tarballs');
  const app = join(work, 'app');
  const configDir = join(work, 'config');
  for (const dir of [tarballs, app, configDir]) mkdirSync(dir);

  const packed = JSON.parse(
    (
      await run(
        'npm',
        ['pack', '-w', '@hookwise/core', '-w', '@hookwise/sandbox', '-w', '@hookwise/gateway', '--pack-destination', tarballs, '--json', '--loglevel=error'],
        { cwd: ROOT },
      )
    ).stdout,
  ) as Array<{ name: string; filename: string }>;
  expect(packed.map((p) => p.name).sort()).toEqual(['@hookwise/core', '@hookwise/gateway', '@hookwise/sandbox']);

  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'embeds-the-gateway', version: '1.0.0', private: true }));
  await run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...packed.map((p) => join(tarballs, p.filename.split('/').pop()!))],
    { cwd: app, maxBuffer: 16 * 1024 * 1024 },
  );

  const installed = walk(join(app, 'node_modules'));
  expect(readdirSync(join(app, 'node_modules', '@hookwise')).sort()).toEqual(['core', 'gateway', 'sandbox']);
  const unwanted = installed.filter(
    (path) => /(^|\/)(better-sqlite3|ioredis|bullmq|hookwise-plugin-[^/]+)$/.test(path) || path.endsWith('binding.gyp') || path.endsWith('.node'),
  );
  expect(unwanted).toEqual([]);

  writeFileSync(join(app, 'embed.js'), EMBED);
  writeFileSync(join(configDir, 'config.yaml'), JSON.stringify(CONFIG, null, 2));
  let output = '';
  const env = { PATH: process.env.PATH, HOME: work };
  child = spawn(process.execPath, [join(app, 'embed.js'), configDir], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const lineMatching = (pattern: RegExp, what: string) =>
    new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const line = output.split('\n').find((l) => pattern.test(l));
        if (line) {
          clearInterval(timer);
          resolve(line);
        } else if (child!.exitCode !== null) {
          clearInterval(timer);
          reject(new Error(`the program exited (${child!.exitCode}) before ${what}:\n${output}`));
        }
      }, 50);
    });
  const { listening } = JSON.parse(await lineMatching(/"listening"/, 'it listened')) as { listening: number };

  const body = JSON.stringify({ service: 'billing' });
  const res = await fetch(`http://127.0.0.1:${listening}/webhooks/deploys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-test-signature': createHmac('sha256', SECRET).update(body).digest('hex') },
    body,
  });
  expect(res.status).toBe(202);
  // The echo agent answers with the rendered prompt; the log deliverer writes it to the log.
  const delivered = JSON.parse(await lineMatching(/response for route 'deploys'/, 'the log deliverer wrote the answer')) as { message: string };
  expect(delivered.message).toContain('deployed billing');
});
