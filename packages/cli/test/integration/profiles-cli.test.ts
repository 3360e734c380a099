// `hookwise profiles add/list/remove` through the built binary: the folder add makes (a starter config.yaml that
// loads, an .env only its owner reads, skills/), the names and profiles it refuses, the listing with the default
// profile first, and a removal that never waits for an answer without a terminal.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempHome, writeConfig } from '../cli-process';

jest.setTimeout(60_000);

let home: string;

beforeAll(async () => {
  home = tempHome('hookwise-profiles-');
  writeConfig(home, 18990);
  expect((await runCli(['profiles', 'add', 'acme', '--config-dir', home], home)).code).toBe(0);
});

describe('hookwise profiles (real binary)', () => {
  it('adds a profile folder with a commented starter config.yaml, an empty .env of mode 0600 and skills/, and prints its URLs', async () => {
    const added = await runCli(['profiles', 'add', 'beta', '--config-dir', home], home);
    expect(added).toMatchObject({ code: 0 });
    expect(added.stdout).toContain('http://127.0.0.1:18990/p/beta/webhooks/<route>');
    expect(added.stdout).toContain('hookwise webhook subscribe <name> --events <types> --profile beta');
    const dir = join(home, 'profiles', 'beta');
    expect(readFileSync(join(dir, 'config.yaml'), 'utf8')).toMatch(/inherited from there: +platforms/);
    expect(readFileSync(join(dir, '.env'), 'utf8')).toBe('');
    expect(statSync(join(dir, '.env')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'skills')).isDirectory()).toBe(true);
    // The starter route is off until it has a secret: the profile loads and checks clean.
    const routes = await runCli(['routes', 'list', '--config-dir', home, '--profile', 'beta', '--json'], home);
    expect(routes).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(routes.stdout)).toEqual([expect.objectContaining({ name: 'example', status: 'disabled', problems: [] })]);
  });

  it('refuses an existing profile, an invalid name and the name default, with what to do', async () => {
    const again = await runCli(['profiles', 'add', 'acme', '--config-dir', home], home);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`profile 'acme' exists already (${join(home, 'profiles', 'acme')})`);
    const invalid = await runCli(['profiles', 'add', 'Acme!', '--config-dir', home], home);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain("invalid profile name 'Acme!': use lower-case letters, digits, '-' and '_'");
    expect(existsSync(join(home, 'profiles', 'Acme!'))).toBe(false);
    const reserved = await runCli(['profiles', 'add', 'default', '--config-dir', home], home);
    expect(reserved.code).toBe(1);
    expect(reserved.stderr).toContain("'default' names the config dir's own routes");
  });

  it('lists the default profile first, then each profile with its routes and folder', async () => {
    const listed = await runCli(['profiles', 'list', '--config-dir', home, '--json'], home);
    expect(listed).toMatchObject({ code: 0 });
    const profiles = JSON.parse(listed.stdout) as Array<{ name: string; routes: number; dir: string }>;
    expect(profiles.slice(0, 2)).toEqual([
      { name: 'default', routes: 0, dir: home },
      { name: 'acme', routes: 1, dir: join(home, 'profiles', 'acme') },
    ]);
    const table = await runCli(['profiles', 'list', '--config-dir', home], home);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME +ROUTES +DIR$/);
    expect(table.stdout.split('\n')[1]).toMatch(/^default +0 +/);
  });

  it('refuses to remove a profile without --yes when stdin is not a terminal, and removes it with --yes', async () => {
    await runCli(['profiles', 'add', 'gone', '--config-dir', home], home);
    const refused = await runCli(['profiles', 'remove', 'gone', '--config-dir', home], home);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("pass --yes to remove profile 'gone' without a prompt");
    expect(existsSync(join(home, 'profiles', 'gone'))).toBe(true);
    const removed = await runCli(['profiles', 'remove', 'gone', '--yes', '--config-dir', home], home);
    expect(removed).toMatchObject({ code: 0 });
    expect(removed.stdout).toContain(`Profile 'gone' removed (${join(home, 'profiles', 'gone')})`);
    expect(existsSync(join(home, 'profiles', 'gone'))).toBe(false);
    const missing = await runCli(['profiles', 'remove', 'gone', '--yes', '--config-dir', home], home);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no profile 'gone'");
  });

  it('names the Redis keys a removed profile leaves, and how to remove them', async () => {
    const redisHome = tempHome('hookwise-profiles-redis-');
    writeConfig(redisHome, 18991);
    const config = readFileSync(join(redisHome, 'config.yaml'), 'utf8');
    writeFileSync(join(redisHome, 'config.yaml'), `${config}store:\n  backend: redis\n  url: redis://127.0.0.1:1\n`);
    await runCli(['profiles', 'add', 'acme', '--config-dir', redisHome], redisHome);
    const removed = await runCli(['profiles', 'remove', 'acme', '--yes', '--json', '--config-dir', redisHome], redisHome);
    expect(removed).toMatchObject({ code: 0 });
    expect(JSON.parse(removed.stdout).left).toEqual([expect.stringContaining("its Redis keys under 'hookwise:profile:acme:' are left")]);
  });

  it("gateway setup --profile writes the profile's own secret into its folder and refuses the listener's flags", async () => {
    const refused = await runCli(['gateway', 'setup', '--yes', '--profile', 'acme', '--port', '9000', '--config-dir', home], home);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("--port and --host are the whole gateway's listener");
    const before = readFileSync(join(home, 'config.yaml'), 'utf8');
    const setup = await runCli(['gateway', 'setup', '--yes', '--profile', 'acme', '--config-dir', home], home);
    expect(setup).toMatchObject({ code: 0 });
    expect(readFileSync(join(home, 'profiles', 'acme', '.env'), 'utf8')).toMatch(/^WEBHOOK_SECRET=\S{32,}\n$/);
    expect(readFileSync(join(home, 'profiles', 'acme', 'config.yaml'), 'utf8')).toMatch(/^ {6}secret: \$\{WEBHOOK_SECRET\}$/m);
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toBe(before);
    const routes = await runCli(['routes', 'list', '--profile', 'acme', '--json', '--config-dir', home], home);
    expect(JSON.parse(routes.stdout)).toEqual([expect.objectContaining({ name: 'example', secret: 'global' })]);
  });

  it('fails with the profiles there are for --profile nosuch, and reads $HOOKWISE_PROFILE', async () => {
    const nosuch = await runCli(['webhook', 'list', '--config-dir', home, '--profile', 'nosuch'], home);
    expect(nosuch.code).toBe(1);
    expect(nosuch.stderr).toContain("no profile 'nosuch': create it with `hookwise profiles add nosuch`");
    expect(nosuch.stderr).toMatch(/profiles here: acme, beta/);
    const fromEnv = await runCli(['routes', 'list', '--config-dir', home, '--json'], home, { HOOKWISE_PROFILE: 'acme' });
    expect(fromEnv).toMatchObject({ code: 0 });
    expect(JSON.parse(fromEnv.stdout)).toEqual([expect.objectContaining({ name: 'example', url: 'http://127.0.0.1:18990/p/acme/webhooks/example' })]);
  });
});
