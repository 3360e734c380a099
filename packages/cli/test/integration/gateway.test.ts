// `hookwise gateway run` and `gateway setup` as real processes: refusals with their messages, setup -> run.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../cli-process';
import { startCli } from '../long-running';

function configDir(yaml?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'hookwise-cli-'));
  if (yaml !== undefined) writeFileSync(join(dir, 'config.yaml'), yaml);
  return dir;
}

const webhook = (routes: string, extra = '') =>
  `platforms:\n  webhook:\n    enabled: true\n    extra:\n      host: 127.0.0.1\n      port: 0\n${extra}      routes:\n${routes}`;

describe('hookwise gateway run refuses bad configs with a message and a non-zero exit', () => {
  jest.setTimeout(60_000);
  it.each([
    [
      'a route without any secret',
      webhook('        ci:\n          events: [push]\n'),
      "route 'ci' has no secret: set `secret` on the route or `platforms.webhook.extra.secret`",
    ],
    ['an invalid route name', webhook('        Bad_Name:\n          secret: abcdefghijklmnop\n'), "route 'Bad_Name': invalid route name"],
    [
      'an unknown deliver type',
      webhook('        ci:\n          secret: abcdefghijklmnop\n          deliver: carrier_pigeon\n'),
      "unknown deliver type 'carrier_pigeon'",
    ],
    [
      'INSECURE_NO_AUTH on a non-loopback host',
      webhook('        dev:\n          secret: INSECURE_NO_AUTH\n').replace('127.0.0.1', '0.0.0.0'),
      'uses INSECURE_NO_AUTH while the gateway binds 0.0.0.0',
    ],
    ['a config file that does not parse', 'platforms:\n  webhook: {enabled: true\n', 'does not parse'],
    [
      'a config file that does not validate',
      webhook('        ci:\n          secret: abcdefghijklmnop\n          events: push\n'),
      'platforms.webhook.extra.routes.ci.events: must be array',
    ],
    ['a disabled adapter', 'platforms:\n  webhook:\n    enabled: false\n', 'the webhook adapter is disabled'],
  ])('%s', async (_what, yaml, message) => {
    const dir = configDir(yaml);
    const result = await runCli(['gateway', 'run'], dir);
    expect(result.code).not.toBe(0);
    expect(result.stderr.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' ')).toContain(message);
  });
});

it('names the real path of a missing skill, not a placeholder', async () => {
  const dir = configDir(webhook('        ci:\n          secret: abcdefghijklmnop\n          skills: [code-review]\n'));
  const result = await runCli(['gateway', 'run'], dir);
  expect(result.code).not.toBe(0);
  const text = result.stderr.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' ');
  expect(text).toContain(`route 'ci': unknown skill 'code-review'; add ${join(dir, 'skills', 'code-review', 'SKILL.md')} or remove it from skills:`);
  expect(text).not.toContain('<config_dir>');
}, 60_000);

describe('hookwise gateway setup', () => {
  // Each case starts the real binary several times; on a busy 2-core machine that takes a while.
  jest.setTimeout(120_000);
  it('--yes --port 9999 writes a config that gateway run serves on 9999, keeping comments', async () => {
    const dir = configDir('# my gateway\nagent:\n  runner: echo # the demo agent\n');
    const setup = await runCli(['gateway', 'setup', '--yes', '--port', '9999', '--host', '127.0.0.1'], dir);
    expect(setup.code).toBe(0);
    expect(setup.stdout).toContain('Webhook adapter enabled on port 9999');
    // The global secret does not verify subscriptions: setup says so before anyone signs with it.
    expect(setup.stdout).toContain('a subscription (hookwise webhook subscribe <name>) gets its own secret instead');
    const yaml = readFileSync(join(dir, 'config.yaml'), 'utf8');
    expect(yaml).toContain('# my gateway');
    expect(yaml).toContain('runner: echo # the demo agent');
    expect(yaml).toMatch(/enabled: true/);
    const env = readFileSync(join(dir, '.env'), 'utf8');
    const secret = /^WEBHOOK_SECRET=(.+)$/m.exec(env)?.[1];
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(join(dir, '.env')).mode & 0o777).toBe(0o600);
    expect(yaml).not.toContain(secret!);

    const gateway = startCli(['gateway', 'run'], dir);
    try {
      await gateway.waitFor(/listening on http:\/\/127\.0\.0\.1:9999/);
      const health = await fetch('http://127.0.0.1:9999/health');
      expect(await health.json()).toEqual({ status: 'ok', platform: 'webhook' });
    } finally {
      expect(await gateway.stop()).toBe(0);
    }
    expect(gateway.output()).toContain('SIGTERM received');
  });

  it('keeps an existing secret on a second run and replaces it with --secret', async () => {
    const dir = configDir();
    await runCli(['gateway', 'setup', '--yes'], dir);
    const first = readFileSync(join(dir, '.env'), 'utf8');
    const again = await runCli(['gateway', 'setup', '--yes', '--port', '9100'], dir);
    expect(again.stdout).toContain('Global HMAC secret kept');
    expect(readFileSync(join(dir, '.env'), 'utf8')).toBe(first);
    await runCli(['gateway', 'setup', '--yes', '--secret', 'a-much-longer-secret-value'], dir);
    expect(readFileSync(join(dir, '.env'), 'utf8')).toBe('WEBHOOK_SECRET=a-much-longer-secret-value\n');
  });

  it('runs a signed webhook end to end through the setup secret', async () => {
    const dir = configDir();
    await runCli(['gateway', 'setup', '--yes', '--host', '127.0.0.1', '--port', '9998'], dir);
    const yaml = readFileSync(join(dir, 'config.yaml'), 'utf8').replace('routes: {}', 'routes:\n        ci:\n          prompt: "push to {ref}"');
    writeFileSync(join(dir, 'config.yaml'), yaml);
    const secret = /^WEBHOOK_SECRET=(.+)$/m.exec(readFileSync(join(dir, '.env'), 'utf8'))![1];
    const gateway = startCli(['gateway', 'run', '--log-format', 'json'], dir);
    try {
      await gateway.waitFor(/listening on/);
      const body = '{"ref":"refs/heads/main"}';
      const { createHmac } = await import('node:crypto');
      const res = await fetch('http://127.0.0.1:9998/webhooks/ci', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-webhook-signature': createHmac('sha256', secret).update(body).digest('hex') },
        body,
      });
      expect(res.status).toBe(202);
      await gateway.waitFor(/push to refs\/heads\/main/);
      expect(gateway.output()).not.toContain(secret);
    } finally {
      await gateway.stop();
    }
  });
});
