// `hookwise gateway run` as an operator meets it, with the real binary: it records its pid and port for the other
// commands (and removes them), warns about a .env others can read and about a missing agent CLI or `gh`, names
// the secret a 401 was checked against, and stops with the npx process that started it (no orphan on the port).
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { closedPort, postSigned, runCli, tempHome, writeConfig } from '../cli-process';
import { startCli } from '../long-running';
import { testProcessEnv } from '@hookwise/testing';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

jest.setTimeout(120_000);

const REPO = join(TEST_DIR, '..', '..', '..');
const homes: string[] = [];
function home(): string {
  const dir = tempHome();
  homes.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of homes) rmSync(dir, { recursive: true, force: true });
});

function runFile(dir: string): { pid: number; port: number; url: string } {
  return JSON.parse(readFileSync(join(dir, 'gateway.run.json'), 'utf8')) as { pid: number; port: number; url: string };
}

/** True once nothing listens on the port (binding it works). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return condition();
}

const ROUTE = '      routes:\n        ci:\n          secret: INSECURE_NO_AUTH\n          prompt: "test {event_type}"\n';

it('writes gateway.run.json (pid, port) that `gateway status` and `webhook test` use while config.yaml names another port; removes it and frees the port on SIGTERM', async () => {
  const dir = home();
  // config.yaml says a port nothing listens on; the gateway runs on another one (--port 0 picks a free one).
  writeConfig(dir, await closedPort(), ROUTE);
  const gateway = startCli(['gateway', 'run', '--port', '0'], dir);
  let port = 0;
  try {
    await gateway.waitFor(/listening on/);
    expect(await waitUntil(() => existsSync(join(dir, 'gateway.run.json')), 5000)).toBe(true);
    const file = runFile(dir);
    port = file.port;
    expect(file).toMatchObject({ pid: gateway.child.pid, url: `http://127.0.0.1:${port}` });
    const status = await runCli(['gateway', 'status', '--json'], dir);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual({ running: true, healthy: true, pid: gateway.child.pid, url: `http://127.0.0.1:${port}`, health: 200 });
    const test = await runCli(['webhook', 'test', 'ci'], dir);
    expect(test.stdout).toContain(`POST http://127.0.0.1:${port}/webhooks/ci`);
    expect(test.stdout).toContain('HTTP 202');
    expect(test.code).toBe(0);
  } finally {
    expect(await gateway.stop('SIGTERM')).toBe(0);
  }
  expect(existsSync(join(dir, 'gateway.run.json'))).toBe(false);
  expect(await portIsFree(port)).toBe(true);
  const stopped = await runCli(['gateway', 'status'], dir);
  expect(stopped.code).toBe(1);
  expect(stopped.stdout).toContain('No gateway runs on this config dir');
});

it('warns at start when .env can be read by others, with the chmod to run; not when it is 0600', async () => {
  const dir = home();
  writeConfig(dir, 0, '      secret: ${WEBHOOK_SECRET}\n');
  writeFileSync(join(dir, '.env'), 'WEBHOOK_SECRET=an-env-secret-long-enough-0123\n');
  chmodSync(join(dir, '.env'), 0o644);
  const loose = startCli(['gateway', 'run'], dir);
  try {
    await loose.waitFor(/listening on/);
    await loose.waitFor(/\.env holds secrets but any user of this machine can read or change it \(mode 0644\): run `chmod 600 .*\.env`/);
  } finally {
    await loose.stop();
  }
  expect(loose.output()).not.toContain('an-env-secret-long-enough-0123');
  chmodSync(join(dir, '.env'), 0o600);
  const tight = startCli(['gateway', 'run'], dir);
  try {
    await tight.waitFor(/listening on/);
  } finally {
    await tight.stop();
  }
  expect(tight.output()).not.toContain('holds secrets');
});

it('warns at start about an agent command that is not installed and a gh that is not logged in, each with the fix', async () => {
  const dir = home();
  // A stand-in gh: answers --version, fails `auth status` as an unauthenticated gh does.
  const gh = join(dir, 'gh');
  writeFileSync(
    gh,
    '#!/bin/sh\nif [ "$1" = "--version" ]; then echo "gh version 2.0.0 (stand-in)"; exit 0; fi\nif [ "$1" = "auth" ]; then echo "You are not logged into any GitHub hosts. To log in, run: gh auth login" >&2; exit 1; fi\nexit 0\n',
  );
  chmodSync(gh, 0o755);
  writeConfig(
    dir,
    0,
    `      routes:\n        pr:\n          secret: a-route-secret-long-enough-01\n          deliver: github_comment\n          deliver_extra: { repo: "{repository.full_name}", pr_number: "{number}" }\n  github_comment:\n    cli_path: ${gh}\nagent:\n  runner: command\n  command: ["hookwise-test-no-such-agent", "-p"]\n`,
  );
  const gateway = startCli(['gateway', 'run'], dir);
  try {
    await gateway.waitFor(/listening on/);
    await gateway.waitFor(
      /agent command 'hookwise-test-no-such-agent': not found on the gateway's PATH \(agent\.command\).*: install it, or set agent\.command to its full path/,
    );
    await gateway.waitFor(
      /GitHub CLI '.*gh': not logged in: `.*gh auth status` exited with 1: You are not logged into any GitHub hosts.*: run `.*gh auth login` as the gateway's user, or set GH_TOKEN in .*\.env/,
    );
  } finally {
    await gateway.stop();
  }
});

it("a 401 on a subscription signed with the global secret says it was checked against the subscription's own secret", async () => {
  const dir = home();
  const setup = await runCli(['gateway', 'setup', '--yes', '--host', '127.0.0.1', '--port', String(await closedPort())], dir);
  expect(setup.code).toBe(0);
  const globalSecret = /^WEBHOOK_SECRET=(.+)$/m.exec(readFileSync(join(dir, '.env'), 'utf8'))![1];
  const subscribed = await runCli(['webhook', 'subscribe', 'ci', '--events', 'push'], dir);
  expect(subscribed.stdout).toContain('This route has its own secret (above): senders of /webhooks/ci must sign with it, not with the global WEBHOOK_SECRET');
  const gateway = startCli(['gateway', 'run', '--port', '0'], dir);
  try {
    await gateway.waitFor(/listening on/);
    expect(await waitUntil(() => existsSync(join(dir, 'gateway.run.json')), 5000)).toBe(true);
    const { url } = runFile(dir);
    const answer = await postSigned(`${url}/webhooks/ci`, globalSecret, '{"event_type":"push"}');
    expect(answer).toEqual({ status: 401, body: { error: 'Invalid signature' } });
    await gateway.waitFor(/Invalid signature on route 'ci' \(generic: .*checked against the subscription's own secret\)/);
  } finally {
    await gateway.stop();
  }
  expect(gateway.output()).not.toContain(globalSecret);
});

it('kill -TERM of the `npx hookwise gateway run` process stops the gateway and frees its port (no orphan)', async () => {
  const dir = home();
  writeConfig(dir, 0, ROUTE);
  const env = testProcessEnv(dir);
  const npx = spawn('npx', ['hookwise', 'gateway', 'run', '--port', '0'], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  npx.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  npx.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => npx.once('exit', () => resolve()));
  try {
    expect(await waitUntil(() => existsSync(join(dir, 'gateway.run.json')), 60_000)).toBe(true);
    const { pid, port } = runFile(dir);
    // The gateway is npx's grandchild (npm runs it under sh -c), not npx itself.
    expect(pid).not.toBe(npx.pid);
    expect(await portIsFree(port)).toBe(false);
    npx.kill('SIGTERM');
    await exited;
    expect(await waitUntil(() => !isAlive(pid), 20_000)).toBe(true);
    expect(await portIsFree(port)).toBe(true);
    expect(existsSync(join(dir, 'gateway.run.json'))).toBe(false);
    expect(output).toMatch(/the process that started the gateway \(pid \d+: npx, npm or a script runner\) ended: no new webhooks/);
  } finally {
    if (npx.exitCode === null) npx.kill('SIGKILL');
    const file = join(dir, 'gateway.run.json');
    if (existsSync(file)) {
      try {
        process.kill(runFile(dir).pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
});

describe('the access log', () => {
  const ROUTE_WITH_EVENTS = '      routes:\n        ci:\n          secret: INSECURE_NO_AUTH\n          events: [push]\n';
  const post = (url: string, path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it('writes one line per request at info, also for 400 and 404 (pretty), without the query string', async () => {
    const dir = home();
    writeConfig(dir, 0, ROUTE_WITH_EVENTS);
    const gateway = startCli(['gateway', 'run'], dir);
    try {
      await gateway.waitFor(/listening on/);
      expect(await waitUntil(() => existsSync(join(dir, 'gateway.run.json')), 5000)).toBe(true);
      const { url } = runFile(dir);
      expect((await post(url, '/webhooks/ci', '{"event_type":"push"}', { 'x-request-id': 'access-1' })).status).toBe(202);
      expect((await post(url, '/webhooks/ci', '{"event_type":"pull"}')).status).toBe(200);
      expect((await post(url, '/webhooks/nope', '{}')).status).toBe(404);
      expect((await post(url, '/webhooks/ci?token=query-secret-value', 'not json')).status).toBe(400);
      await gateway.waitFor(/POST \/webhooks\/ci 202 accepted route=ci event=push delivery=access-1 [\d.]+ ms client=127\.0\.0\.1/);
      await gateway.waitFor(/POST \/webhooks\/ci 200 ignored route=ci event=pull delivery=\S+ [\d.]+ ms client=127\.0\.0\.1/);
      await gateway.waitFor(/POST \/webhooks\/nope 404 rejected:unknown_route route=nope [\d.]+ ms client=127\.0\.0\.1/);
      await gateway.waitFor(/POST \/webhooks\/ci 400 rejected:bad_body route=ci [\d.]+ ms/);
    } finally {
      await gateway.stop();
    }
    expect(gateway.output()).not.toContain('query-secret-value');
  });

  it('writes JSON fields with --log-format json, and nothing with log.access: false', async () => {
    const dir = home();
    writeConfig(dir, 0, ROUTE_WITH_EVENTS);
    const json = startCli(['gateway', 'run', '--log-format', 'json'], dir);
    try {
      await json.waitFor(/listening on/);
      expect(await waitUntil(() => existsSync(join(dir, 'gateway.run.json')), 5000)).toBe(true);
      expect((await post(runFile(dir).url, '/webhooks/ci', '{"event_type":"push"}', { 'x-request-id': 'access-json-1' })).status).toBe(202);
      const [line] = await json.waitFor(/\{[^\n]*"access":true[^\n]*\}/);
      expect(JSON.parse(line)).toMatchObject({
        level: 'info',
        access: true,
        method: 'POST',
        path: '/webhooks/ci',
        status: 202,
        outcome: 'accepted',
        route: 'ci',
        event: 'push',
        delivery_id: 'access-json-1',
        client: '127.0.0.1',
        duration_ms: expect.any(Number),
      });
    } finally {
      await json.stop();
    }
    writeFileSync(join(dir, 'config.yaml'), `${readFileSync(join(dir, 'config.yaml'), 'utf8')}log:\n  access: false\n`);
    const off = startCli(['gateway', 'run'], dir);
    try {
      await off.waitFor(/listening on/);
      expect(await waitUntil(() => existsSync(join(dir, 'gateway.run.json')), 5000)).toBe(true);
      expect((await post(runFile(dir).url, '/webhooks/ci', '{"event_type":"push"}', { 'x-request-id': 'access-off-1' })).status).toBe(202);
      await off.waitFor(/delivered access-off-1/);
    } finally {
      await off.stop();
    }
    expect(off.output()).not.toMatch(/POST \/webhooks\/ci 202/);
  });
});
