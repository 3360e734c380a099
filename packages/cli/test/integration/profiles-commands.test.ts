// The config-dir commands with --profile, through the built binary: each reads and writes the profile's own folder
// (subscriptions, skills) and store, and prints its URLs under /p/<name>/; without --profile they act on the
// config dir's own routes, as before profiles.
import { mkdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteStore } from '@hookwise/store-sqlite';
import { jobInput } from '@hookwise/testing';
import { runCli, tempHome, writeConfig } from '../cli-process';

jest.setTimeout(60_000);

let home: string;
const acmeDir = (): string => join(home, 'profiles', 'acme');

/** Jobs written through the store API into a SQLite file, as a gateway serving that profile would leave them. */
async function enqueue(file: string, deliveryIds: string[]): Promise<void> {
  const store = await openSqliteStore({ file, backgroundCheckpoints: false });
  try {
    for (const deliveryId of deliveryIds) await store.jobs.enqueue(jobInput({ deliveryId }));
  } finally {
    await store.close();
  }
}

function skill(dir: string, name: string, description: string): void {
  mkdirSync(join(dir, 'skills', name), { recursive: true });
  writeFileSync(join(dir, 'skills', name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\nDo it.\n`);
}

beforeAll(async () => {
  home = tempHome('hookwise-profile-commands-');
  writeConfig(home, 18992, 'store:\n  backend: sqlite\n');
  expect((await runCli(['profiles', 'add', 'acme', '--config-dir', home], home)).code).toBe(0);
});

describe('commands with --profile (real binary)', () => {
  it("webhook subscribe --profile writes only the profile's subscriptions and prints its /p/<name>/ URL; webhook list reads each apart", async () => {
    const made = await runCli(['webhook', 'subscribe', 'ci', '--events', 'push', '--profile', 'acme', '--config-dir', home], home);
    expect(made).toMatchObject({ code: 0 });
    expect(made.stdout).toContain('URL:      http://127.0.0.1:18992/p/acme/webhooks/ci');
    expect(made.stdout).toContain('Try it: hookwise webhook test ci --profile acme');
    expect(Object.keys(JSON.parse(readFileSync(join(acmeDir(), 'webhook_subscriptions.json'), 'utf8')))).toEqual(['ci']);
    expect(existsSync(join(home, 'webhook_subscriptions.json'))).toBe(false);

    const acme = await runCli(['webhook', 'list', '--profile', 'acme', '--json', '--config-dir', home], home);
    expect(JSON.parse(acme.stdout)).toEqual([expect.objectContaining({ name: 'ci', url: 'http://127.0.0.1:18992/p/acme/webhooks/ci' })]);
    const own = await runCli(['webhook', 'list', '--config-dir', home], home);
    expect(own).toMatchObject({ code: 0 });
    expect(own.stdout).toContain('No subscriptions yet');
  });

  it("routes list --profile lists the profile's routes at their /p/<name>/ URLs, and without it the config dir's own", async () => {
    writeFileSync(join(home, 'webhook_subscriptions.json'), '{}');
    await runCli(['webhook', 'subscribe', 'own', '--events', 'push', '--config-dir', home], home);
    const acme = JSON.parse((await runCli(['routes', 'list', '--profile', 'acme', '--json', '--config-dir', home], home)).stdout) as Array<{
      name: string;
      url: string;
    }>;
    expect(acme.map((r) => [r.name, r.url])).toEqual([
      ['example', 'http://127.0.0.1:18992/p/acme/webhooks/example'],
      ['ci', 'http://127.0.0.1:18992/p/acme/webhooks/ci'],
    ]);
    const own = JSON.parse((await runCli(['routes', 'list', '--json', '--config-dir', home], home)).stdout) as Array<{ name: string; url: string }>;
    expect(own.map((r) => [r.name, r.url])).toEqual([['own', 'http://127.0.0.1:18992/webhooks/own']]);
  });

  it("skills list --profile lists the profile's skills first, before the built-in ones", async () => {
    skill(acmeDir(), 'acme-triage', 'only in acme');
    skill(home, 'global-notes', 'the config dir own');
    const listed = JSON.parse((await runCli(['skills', 'list', '--profile', 'acme', '--json', '--config-dir', home], home)).stdout) as Array<{
      name: string;
      builtin: boolean;
    }>;
    expect(listed[0]).toMatchObject({ name: 'acme-triage', builtin: false });
    expect(listed.filter((s) => !s.builtin).map((s) => s.name)).toEqual(['acme-triage']);
    const own = JSON.parse((await runCli(['skills', 'list', '--json', '--config-dir', home], home)).stdout) as Array<{ name: string }>;
    expect(own.map((s) => s.name)).toContain('global-notes');
    expect(own.map((s) => s.name)).not.toContain('acme-triage');
  });

  it("deliveries list --profile reads the profile's own store offline; --all-profiles lists every profile's with a PROFILE column", async () => {
    await enqueue(join(acmeDir(), 'hookwise.sqlite'), ['acme-1', 'acme-2']);
    await enqueue(join(home, 'hookwise.sqlite'), ['own-1']);
    const acme = await runCli(['deliveries', 'list', '--profile', 'acme', '--json', '--config-dir', home], home);
    expect(acme).toMatchObject({ code: 0 });
    expect((JSON.parse(acme.stdout) as Array<{ deliveryId: string }>).map((j) => j.deliveryId).sort()).toEqual(['acme-1', 'acme-2']);
    const own = await runCli(['deliveries', 'list', '--json', '--config-dir', home], home);
    expect((JSON.parse(own.stdout) as Array<{ deliveryId: string }>).map((j) => j.deliveryId)).toEqual(['own-1']);

    const all = await runCli(['deliveries', 'list', '--all-profiles', '--json', '--config-dir', home], home, { HOOKWISE_PROFILE: 'acme' });
    expect(all).toMatchObject({ code: 0 });
    const jobs = JSON.parse(all.stdout) as Array<{ deliveryId: string; profile: string }>;
    expect(jobs.map((j) => `${j.profile}/${j.deliveryId}`).sort()).toEqual(['acme/acme-1', 'acme/acme-2', 'default/own-1']);
    const table = await runCli(['deliveries', 'list', '--all-profiles', '--config-dir', home], home);
    expect(table.stdout.split('\n')[0]).toMatch(/^PROFILE +DELIVERY ID +ROUTE/);
    expect(table.stdout).toMatch(/\nacme +acme-\d/);
    const both = await runCli(['deliveries', 'list', '--all-profiles', '--profile', 'acme', '--config-dir', home], home);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('give --profile or --all-profiles, not both');
  });

  it('says which profile it looked in when it finds nothing, and fails for a profile that does not exist', async () => {
    writeFileSync(join(home, 'profiles', 'acme', 'webhook_subscriptions.json'), '{}');
    await runCli(['profiles', 'add', 'empty', '--config-dir', home], home);
    writeFileSync(join(home, 'profiles', 'empty', 'config.yaml'), '');
    const nothing = await runCli(['routes', 'list', '--profile', 'empty', '--config-dir', home], home);
    expect(nothing).toMatchObject({ code: 0 });
    expect(nothing.stdout).toContain(`No routes yet in profile 'empty' (${join(home, 'profiles', 'empty')})`);
    expect(nothing.stdout).toContain('--profile empty');
    const nosuch = await runCli(['deliveries', 'list', '--profile', 'nosuch', '--json', '--config-dir', home], home);
    expect(nosuch.code).toBe(1);
    expect(JSON.parse(nosuch.stdout).error.message).toContain("no profile 'nosuch': create it with `hookwise profiles add nosuch`");
  });
});
