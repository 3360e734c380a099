// The container image and the compose file. Always: the Dockerfile is multi-stage, runs as a non-root user with
// HOOKWISE_HOME a volume and a health check, and compose.yaml runs the gateway with Redis on a config the gateway
// loads. With HOOKWISE_CONTAINER_TESTS=1 and a working engine (podman or docker): the image is built from this
// repository and run (setup, a subscription, a signed webhook answered and delivered, the health check, a
// graceful stop), then compose brings up the gateway with Redis and the event goes through Redis. That part takes
// minutes (npm ci and the TypeScript build inside the image, from `git archive HEAD`), so CI runs it only when
// asked. NODE_IMAGE and REDIS_IMAGE replace the base images where Docker Hub is out of reach
// (container-base-images.sh makes them).
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { loadConfig } from '@hookwise/gateway';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

const run = promisify(execFile);
const ROOT = join(TEST_DIR, '..', '..', '..');
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

/** The Dockerfile's instructions (continuation lines joined, comments dropped), grouped by stage. */
function stages(): string[][] {
  const lines = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const out: string[][] = [];
  for (const line of lines) {
    if (/^FROM\s/i.test(line)) out.push([]);
    out.at(-1)?.push(line);
  }
  return out;
}

describe('Dockerfile', () => {
  it('builds in one stage and runs from another that copies only the build result', () => {
    const all = stages();
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(all[0][0]).toMatch(/^FROM \$\{NODE_IMAGE\} AS build$/);
    const final = all.at(-1)!;
    expect(final).toContain('COPY --from=build /src /opt/hookwise');
    // The compilers stay in the build stage.
    expect(final.join('\n')).not.toMatch(/g\+\+|make|python3/);
  });

  it('runs as a non-root user, with HOOKWISE_HOME a volume, a health check and an exec-form entry point', () => {
    const final = stages().at(-1)!.join('\n');
    const user = /^USER (\S+)$/m.exec(final)?.[1];
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    expect(final).toMatch(/HOOKWISE_HOME=\/var\/lib\/hookwise/);
    expect(final).toMatch(/^VOLUME \["\/var\/lib\/hookwise"\]$/m);
    expect(final).toMatch(/^HEALTHCHECK .*CMD \["hookwise", "gateway", "status"\]$/m);
    // Exec form: the gateway is the process that gets SIGTERM from `docker stop`, not a shell in front of it.
    expect(final).toMatch(/^ENTRYPOINT \["hookwise"\]$/m);
    expect(final).toMatch(/^CMD \["gateway", "run", "--log-format", "json"\]$/m);
  });
});

describe('compose.yaml', () => {
  const compose = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8')) as {
    services: Record<
      string,
      {
        image?: string;
        depends_on?: Record<string, { condition: string }>;
        volumes?: string[];
        environment?: Record<string, string>;
        healthcheck?: unknown;
        command?: string[];
      }
    >;
    volumes: Record<string, unknown>;
  };

  it('runs the gateway with its config dir on a volume, after a healthy Redis that keeps its data', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['gateway', 'redis']);
    const { gateway, redis } = compose.services;
    expect(gateway.depends_on).toEqual({ redis: { condition: 'service_healthy' } });
    expect(gateway.volumes).toContain('hookwise-home:/var/lib/hookwise');
    expect(gateway.environment?.REDIS_URL).toBe('redis://redis:6379');
    expect(redis.healthcheck).toBeDefined();
    expect(redis.volumes).toContain('redis-data:/data');
    expect(redis.command).toEqual(expect.arrayContaining(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction']));
    expect(Object.keys(compose.volumes).sort()).toEqual(['hookwise-home', 'redis-data']);
  });

  it('mounts a config.yaml the gateway loads: the Redis store, the secret from WEBHOOK_SECRET, a route', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookwise-compose-config-'));
    try {
      cpSync(join(ROOT, 'deploy', 'compose', 'config.yaml'), join(dir, 'config.yaml'));
      const { config } = loadConfig({ configDir: dir, env: { WEBHOOK_SECRET: 'compose-test-secret-0123456789', REDIS_URL: 'redis://redis:6379' } });
      expect(config.store).toMatchObject({ backend: 'redis', url: 'redis://redis:6379' });
      expect(config.platforms.webhook).toMatchObject({ enabled: true, extra: { host: '0.0.0.0', port: 8644, secret: 'compose-test-secret-0123456789' } });
      expect(Object.keys(config.platforms.webhook.extra.routes)).toEqual(['ci']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

async function engine(): Promise<string | undefined> {
  for (const candidate of ['podman', 'docker']) {
    try {
      await run(candidate, ['info'], { timeout: 30_000 });
      return candidate;
    } catch {
      /* not installed, or no engine behind the client */
    }
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`timed out: ${what}`);
}

function signedPost(url: string, secret: string, deliveryId: string): Promise<Response> {
  const body = JSON.stringify({ event_type: 'push', ref: 'refs/heads/main' });
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': createHmac('sha256', secret).update(body).digest('hex'), 'x-request-id': deliveryId },
    body,
  });
}

const wanted = process.env.HOOKWISE_CONTAINER_TESTS === '1';
// Reported as skipped (not passed) unless asked for.
const containerIt = wanted ? it : it.skip;

describe('the image and compose, built and run by a container engine', () => {
  let cli: string | undefined;
  const suffix = `${process.pid}-${Date.now()}`;
  const image = `localhost/hookwise-test:${suffix}`;
  const volume = `hookwise-test-${suffix}`;
  const container = `hookwise-test-${suffix}`;
  let work: string | undefined;

  beforeAll(async () => {
    if (!wanted) return;
    cli = await engine();
    if (!cli) throw new Error('HOOKWISE_CONTAINER_TESTS=1, but neither `podman info` nor `docker info` works on this machine');
  }, 60_000);

  afterAll(async () => {
    if (!cli) return;
    await run(cli, ['rm', '-f', container]).catch(() => undefined);
    await run(cli, ['volume', 'rm', '-f', volume]).catch(() => undefined);
    if (work) {
      await run(cli === 'podman' ? 'podman-compose' : 'docker', cli === 'podman' ? ['down', '-v'] : ['compose', 'down', '-v'], {
        cwd: work,
        env: { ...process.env, REDIS_IMAGE: process.env.REDIS_IMAGE ?? 'redis:7-bookworm' },
      }).catch(() => undefined);
      rmSync(work, { recursive: true, force: true });
    }
    await run(cli, ['rmi', '-f', image]).catch(() => undefined);
  }, 120_000);

  containerIt(
    'builds the image; the gateway in it runs as a non-root user, answers a signed webhook, is healthy and stops gracefully',
    async () => {
      if (!cli) throw new Error('no container engine');
      const buildArgs = process.env.NODE_IMAGE ? ['--build-arg', `NODE_IMAGE=${process.env.NODE_IMAGE}`] : [];
      // The committed tree, as a clone would have it (a working tree may hold half-done edits).
      const context = mkdtempSync(join(tmpdir(), 'hookwise-image-context-'));
      try {
        await run('sh', ['-c', 'git -C "$1" archive HEAD | tar -x -C "$2"', 'sh', ROOT, context]);
        await run(cli, ['build', ...(cli === 'podman' ? ['--format', 'docker'] : []), ...buildArgs, '-t', image, context], {
          maxBuffer: 256 * 1024 * 1024,
          timeout: 900_000,
        });
      } finally {
        rmSync(context, { recursive: true, force: true });
      }
      const inVolume = ['run', '--rm', '-v', `${volume}:/var/lib/hookwise`, image];
      await run(cli, [...inVolume, 'gateway', 'setup', '--yes']);
      const { secret } = JSON.parse((await run(cli, [...inVolume, 'webhook', 'subscribe', 'ci', '--events', 'push', '--json'])).stdout) as { secret: string };
      const port = await freePort();
      await run(cli, ['run', '-d', '--name', container, '-p', `127.0.0.1:${port}:8644`, '-v', `${volume}:/var/lib/hookwise`, image]);
      await until(async () => (await fetch(`http://127.0.0.1:${port}/health`)).ok, 60_000, 'the containerised gateway to answer /health');
      expect((await run(cli, ['exec', container, 'id', '-u'])).stdout.trim()).toBe('10001');
      // The image's HEALTHCHECK command, run now rather than waiting for its interval.
      if (cli === 'podman') await run(cli, ['healthcheck', 'run', container]);
      else await run(cli, ['exec', container, 'hookwise', 'gateway', 'status']);
      const answer = await signedPost(`http://127.0.0.1:${port}/webhooks/ci`, secret, 'container-1');
      expect(answer.status).toBe(202);
      await until(async () => (await run(cli!, ['logs', container])).stdout.includes('delivered container-1'), 30_000, 'the delivery in the container log');
      await run(cli, ['stop', '-t', '30', container]);
      expect((await run(cli, ['inspect', container, '--format', '{{.State.ExitCode}}'])).stdout.trim()).toBe('0');
      const logs = (await run(cli, ['logs', container])).stdout;
      expect(logs).toContain('SIGTERM received');
      expect(logs).not.toContain(secret);
    },
    1_200_000,
  );

  containerIt(
    'compose runs the gateway with Redis: a signed webhook goes through the Redis store',
    async () => {
      if (!cli) throw new Error('no container engine');
      work = mkdtempSync(join(tmpdir(), 'hookwise-compose-'));
      const port = await freePort();
      // The image built above, published on a free loopback port; no build section, so compose does not build again.
      const compose = readFileSync(join(ROOT, 'compose.yaml'), 'utf8')
        .replace('"8644:8644"', `"127.0.0.1:${port}:8644"`)
        .replace('image: hookwise:local', `image: ${image}`)
        .replace(/^ {4}build:\n(?: {6}.*\n)+/m, '');
      expect(compose).not.toContain('build:');
      writeFileSync(join(work, 'compose.yaml'), compose);
      mkdirSync(join(work, 'deploy', 'compose'), { recursive: true });
      cpSync(join(ROOT, 'deploy', 'compose', 'config.yaml'), join(work, 'deploy', 'compose', 'config.yaml'));
      const secret = createHmac('sha256', String(Math.random())).update(suffix).digest('hex');
      writeFileSync(join(work, '.env'), `WEBHOOK_SECRET=${secret}\n`, { mode: 0o600 });
      const env = { ...process.env, REDIS_IMAGE: process.env.REDIS_IMAGE ?? 'redis:7-bookworm' };
      const [command, args] = cli === 'podman' ? ['podman-compose', ['up', '-d']] : ['docker', ['compose', 'up', '-d']];
      await run(command, args, { cwd: work, env, timeout: 300_000 });
      // The gateway may start before Redis accepts connections; `restart: unless-stopped` brings it back.
      await until(async () => (await fetch(`http://127.0.0.1:${port}/health`)).ok, 120_000, 'the compose gateway to answer /health');
      const answer = await signedPost(`http://127.0.0.1:${port}/webhooks/ci`, secret, 'compose-1');
      expect(answer.status).toBe(202);
      const ps = (await run(cli, ['ps', '--format', '{{.Names}}'])).stdout.split('\n').filter(Boolean);
      const redis = ps.find((name) => name.includes('redis'))!;
      const gateway = ps.find((name) => name.includes('gateway'))!;
      await until(async () => (await run(cli!, ['logs', gateway])).stdout.includes('delivered compose-1'), 60_000, 'the delivery');
      expect((await run(cli, ['exec', redis, 'redis-cli', '--scan', '--pattern', 'hookwise:delivery-id:ci:*'])).stdout).toContain('compose-1');
    },
    600_000,
  );
});
