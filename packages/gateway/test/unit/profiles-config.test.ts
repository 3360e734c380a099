// A profile's config: its own config.yaml over the global one, its own .env over the gateway's environment, its
// own store and data dir; the default profile's routes and secrets never inherited; the process's keys refused.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkProfile, listProfiles, loadConfig, profileDir } from '../../src';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-profiles-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (path: string, text: string) => {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), text);
};

const GLOBAL = `
platforms:
  webhook:
    enabled: true
    extra:
      port: 8700
      secret: global-secret-0123456789abcdef
      routes:
        ci: { prompt: "ci {__raw__}" }
  telegram:
    enabled: true
    token: \${TELEGRAM_BOT_TOKEN}
agent:
  runner: echo
  timeout_seconds: 120
  budget: { runs_per_hour: 50 }
store: { backend: sqlite }
log: { level: warn }
`;

describe('profiles', () => {
  it('lists the folders under profiles/ with valid names', () => {
    write('profiles/acme/config.yaml', '{}');
    write('profiles/beta/.env', '');
    write('profiles/Not_Valid/config.yaml', '{}');
    write('profiles/default/config.yaml', '{}');
    expect(listProfiles(dir)).toEqual(['acme', 'beta']);
    expect(listProfiles(join(dir, 'nowhere'))).toEqual([]);
  });

  it('lays a profile over the global config: own routes and secrets, inherited agent keys, platforms and store kind', () => {
    write('config.yaml', GLOBAL);
    write('.env', 'TELEGRAM_BOT_TOKEN=111:global-bot-token\nSHARED=from-global\n');
    write(
      'profiles/acme/config.yaml',
      `
platforms:
  webhook:
    extra:
      secret: \${ACME_SECRET}
      routes:
        deploys: { prompt: "deploy {__raw__}", deliver: telegram }
agent:
  timeout_seconds: 30
  budget: { usd_per_day: 5 }
`,
    );
    write('profiles/acme/.env', 'ACME_SECRET=acme-secret-0123456789abcdef\nTELEGRAM_BOT_TOKEN=222:acme-bot-token\n');
    const env = { HOOKWISE_DATA_DIR: join(dir, 'data') };
    const loaded = loadConfig({ configDir: dir, profile: 'acme', env });
    const extra = loaded.config.platforms.webhook.extra;
    expect(Object.keys(extra.routes ?? {})).toEqual(['deploys']);
    expect(extra.secret).toBe('acme-secret-0123456789abcdef');
    expect(extra.port).toBe(8700);
    expect(loaded.config.agent).toMatchObject({ runner: 'echo', timeout_seconds: 30, budget: { usd_per_day: 5 } });
    expect(loaded.config.agent.budget).toEqual({ usd_per_day: 5, when_exceeded: 'wait' });
    // The global config's ${TELEGRAM_BOT_TOKEN}, read with the profile's .env: the profile's own bot.
    expect((loaded.config.platforms as Record<string, { token?: string }>).telegram.token).toBe('222:acme-bot-token');
    expect(loaded.config.store).toMatchObject({ backend: 'sqlite', path: join(dir, 'profiles', 'acme', 'hookwise.sqlite') });
    expect(loaded.config.log.level).toBe('warn');
    expect(loaded.configDir).toBe(join(dir, 'profiles', 'acme'));
    expect(loaded.profile).toEqual({ name: 'acme', rootDir: dir });
    expect(loaded.env.SHARED).toBe('from-global');
    expect(loaded.env.HOOKWISE_DATA_DIR).toBe(join(dir, 'data', 'profiles', 'acme'));
    // The default profile is untouched by the profile.
    const global = loadConfig({ configDir: dir, env });
    expect(Object.keys(global.config.platforms.webhook.extra.routes ?? {})).toEqual(['ci']);
    expect(global.config.platforms.webhook.extra.secret).toBe('global-secret-0123456789abcdef');
    expect(global.profile).toBeUndefined();
  });

  it('never inherits the global webhook secret, and ignores WEBHOOK_SECRET from the environment', () => {
    write('config.yaml', GLOBAL);
    write('.env', 'TELEGRAM_BOT_TOKEN=111:global-bot-token\n');
    write('profiles/bare/config.yaml', 'platforms: { webhook: { extra: { routes: { a: { prompt: "x" } } } } }\n');
    const loaded = loadConfig({ configDir: dir, profile: 'bare', env: { WEBHOOK_SECRET: 'from-env-0123456789abcdef' } });
    expect(loaded.config.platforms.webhook.extra.secret).toBeUndefined();
    expect(loaded.config.platforms.webhook.extra.secrets).toBeUndefined();
  });

  it('keeps a Redis profile under its own key prefix, and a relative SQLite path in the profile folder', () => {
    write('config.yaml', 'store: { backend: redis, url: "redis://127.0.0.1:1", prefix: hw }\n');
    write('profiles/acme/config.yaml', '');
    expect(loadConfig({ configDir: dir, profile: 'acme', env: {} }).config.store).toMatchObject({ backend: 'redis', prefix: 'hw:profile:acme' });
    write('config.yaml', 'store: { backend: sqlite, path: data/hw.sqlite }\n');
    expect(loadConfig({ configDir: dir, profile: 'acme', env: {} }).config.store.path).toBe(join(dir, 'data', 'profiles', 'acme', 'hw.sqlite'));
  });

  it("refuses the process's keys in a profile's config.yaml, naming each", () => {
    write('profiles/acme/config.yaml', 'store: { backend: memory }\nadmin: { enabled: true }\nplatforms: { webhook: { extra: { port: 9000 } } }\n');
    expect(() => loadConfig({ configDir: dir, profile: 'acme', env: {} })).toThrow(/profile 'acme'.*is not valid/);
    try {
      loadConfig({ configDir: dir, profile: 'acme', env: {} });
    } catch (err) {
      expect((err as { problems: string[] }).problems).toEqual([
        "store: set for the whole gateway in the config dir's config.yaml, not in a profile; remove it here",
        "admin: set for the whole gateway in the config dir's config.yaml, not in a profile; remove it here",
        "platforms.webhook.extra.port: the listener is the whole gateway's (set it in the config dir's config.yaml); remove it here",
      ]);
    }
  });

  it('says which profiles exist when one is missing, and what a name may be', () => {
    write('profiles/acme/config.yaml', '');
    expect(() => checkProfile(dir, 'acmee')).toThrow("no profile 'acmee': create it with `hookwise profiles add acmee`");
    try {
      checkProfile(dir, 'acmee');
    } catch (err) {
      expect((err as { problems: string[] }).problems[0]).toContain('(profiles here: acme)');
    }
    expect(() => profileDir(dir, '../etc')).toThrow(/no profile/);
    try {
      profileDir(dir, 'default');
    } catch (err) {
      expect((err as { problems: string[] }).problems[0]).toBe("'default' is the config dir itself, not a profile: leave --profile out to use it");
    }
    expect(() => loadConfig({ configDir: dir, profile: 'Acme', env: {} })).toThrow(/no profile 'Acme'/);
  });
});
