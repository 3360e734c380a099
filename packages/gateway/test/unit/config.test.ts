// DESIGN 5: config loading, .env, ${VAR} expansion, env overrides and key-path errors.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import { loadConfig } from '../../src/config/load';
import { configSchema, routeSchema, subscriptionEntrySchema } from '../../src/config/schema';
import { isHookwiseConfigError } from '@hookwise/core';

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'hw-config-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function problemsOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(isHookwiseConfigError(err)).toBe(true);
    return (err as Error).message;
  }
  throw new Error('expected a config error');
}

describe('loadConfig', () => {
  it('applies defaults when the directory has no config file', () => {
    const { config, configFile } = loadConfig({ configDir: dirWith({}), env: {} });
    expect(configFile).toBeUndefined();
    expect(config.platforms.webhook).toEqual({
      enabled: false,
      extra: {
        host: '0.0.0.0',
        port: 8644,
        rate_limit: 30,
        max_body_bytes: 1048576,
        auth_failure_limit: 60,
        trusted_proxies: [],
        shutdown_timeout_seconds: 10,
        routes: {},
      },
    });
    expect(config.agent).toMatchObject({ runner: 'echo', concurrency: 2 });
  });

  it('reads config.yaml from $HOOKWISE_HOME', () => {
    const dir = dirWith({ 'config.yaml': 'platforms:\n  webhook:\n    enabled: true\n    extra:\n      port: 9000\n' });
    const { config, configDir } = loadConfig({ env: { HOOKWISE_HOME: dir } });
    expect(configDir).toBe(dir);
    expect(config.platforms.webhook.enabled).toBe(true);
    expect(config.platforms.webhook.extra.port).toBe(9000);
  });

  it('expands ${VAR} from .env and the environment (the environment wins) and supports defaults', () => {
    const dir = dirWith({
      '.env': 'TOKEN=from-dotenv\nOTHER="quoted value"\n# comment\n',
      'config.yaml': 'platforms:\n  platform_01:\n    enabled: true\n    token: ${TOKEN}\n    home_channel: ${OTHER}\n    api_base: ${BASE:-http://x}\n',
    });
    expect(loadConfig({ configDir: dir, env: {} }).config.platforms.platform_01).toMatchObject({
      token: 'from-dotenv',
      home_channel: 'quoted value',
      api_base: 'http://x',
    });
    expect(loadConfig({ configDir: dir, env: { TOKEN: 'from-env' } }).config.platforms.platform_01).toMatchObject({ token: 'from-env' });
  });

  it('names the key path of an unset variable', () => {
    const dir = dirWith({ 'config.yaml': 'platforms:\n  webhook:\n    extra:\n      secret: ${NOPE_SECRET}\n' });
    expect(problemsOf(() => loadConfig({ configDir: dir, env: {} }))).toContain('platforms.webhook.extra.secret: environment variable NOPE_SECRET is not set');
  });

  it('lets WEBHOOK_ENABLED, WEBHOOK_PORT and WEBHOOK_SECRET override the file', () => {
    const dir = dirWith({ 'config.yaml': 'platforms:\n  webhook:\n    enabled: false\n    extra:\n      port: 9000\n      secret: file\n' });
    const { config } = loadConfig({ configDir: dir, env: { WEBHOOK_ENABLED: 'yes', WEBHOOK_PORT: '9100', WEBHOOK_SECRET: 'env-secret' } });
    expect(config.platforms.webhook.enabled).toBe(true);
    expect(config.platforms.webhook.extra.port).toBe(9100);
    expect(config.platforms.webhook.extra.secret).toBe('env-secret');
    expect(problemsOf(() => loadConfig({ configDir: dir, env: { WEBHOOK_PORT: 'eighty' } }))).toContain("WEBHOOK_PORT: 'eighty' is not a port number");
  });

  it('reports every schema problem with its key path at once', () => {
    const dir = dirWith({
      'config.yaml':
        'platforms:\n  webhook:\n    extra:\n      port: "x"\n      rate_limit: 0\n      routes:\n        a:\n          events: push\n          colour: red\nagent:\n  concurrency: 0\n',
    });
    const message = problemsOf(() => loadConfig({ configDir: dir, env: {} }));
    expect(message).toContain('platforms.webhook.extra.port: must be integer');
    expect(message).toContain('platforms.webhook.extra.rate_limit: must be >= 1');
    expect(message).toContain('platforms.webhook.extra.routes.a.events: must be array');
    expect(message).toContain("platforms.webhook.extra.routes.a: unknown key 'colour'");
    expect(message).toContain('agent.concurrency: must be >= 1');
  });

  it('says which file does not parse', () => {
    const dir = dirWith({ 'config.yaml': 'platforms:\n  webhook: [unclosed\n' });
    expect(problemsOf(() => loadConfig({ configDir: dir, env: {} }))).toMatch(/does not parse/);
    const scalar = dirWith({ 'config.yaml': 'just a string\n' });
    expect(problemsOf(() => loadConfig({ configDir: scalar, env: {} }))).toContain('must be a mapping');
  });
});

describe('config schemas', () => {
  // The validators of our own schemas are generated ahead of time (scripts/gen-validators.js, which checks the
  // schema too; test/validators.test.ts keeps them current); the meta-schema check is also made here.
  it.each([
    ['configSchema', configSchema],
    ['routeSchema', routeSchema],
    ['subscriptionEntrySchema', subscriptionEntrySchema],
  ])('%s is a valid JSON Schema', (_name, schema) => {
    const ajv = new Ajv({ strict: false });
    expect(ajv.validateSchema(schema) ? [] : ajv.errors).toEqual([]);
  });
});
