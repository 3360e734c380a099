// `webhook subscribe --source/--source-option/--rotate-secret` and `plugins list` with the real binary.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempHome } from '../cli-process';

const read = (home: string) => JSON.parse(readFileSync(join(home, 'webhook_subscriptions.json'), 'utf8')) as Record<string, Record<string, unknown>>;

describe('hookwise webhook subscribe with a source', () => {
  it('pins a subscription to a source with options, and refuses an unknown source or bad options', async () => {
    const home = tempHome();
    const ok = await runCli(
      ['webhook', 'subscribe', 'payments', '--source', 'stripe', '--source-option', 'tolerance_seconds=600', '--events', 'invoice.paid'],
      home,
    );
    expect(ok.stderr).not.toMatch(/error/i);
    expect(ok.code).toBe(0);
    expect(read(home).payments).toMatchObject({ source: 'stripe', source_options: { tolerance_seconds: 600 }, events: ['invoice.paid'] });

    const unknown = await runCli(['webhook', 'subscribe', 'other', '--source', 'stripey'], home);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/unknown source 'stripey'; known: .*stripe/);
    const bad = await runCli(['webhook', 'subscribe', 'other', '--source', 'stripe', '--source-option', 'tolerance_seconds=soon'], home);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('source_options.tolerance_seconds');
    expect(Object.keys(read(home))).toEqual(['payments']);
  });

  it('rotates a secret: the new one first, the old one kept second, both printed once', async () => {
    const home = tempHome();
    await runCli(['webhook', 'subscribe', 'ci'], home);
    const before = read(home).ci.secret as string;
    const rotated = await runCli(['webhook', 'subscribe', 'ci', '--rotate-secret'], home);
    expect(rotated.code).toBe(0);
    const secrets = read(home).ci.secrets as string[];
    expect(secrets).toHaveLength(2);
    expect(secrets[1]).toBe(before);
    expect(secrets[0]).not.toBe(before);
    expect(secrets[0].length).toBeGreaterThanOrEqual(32);
    expect(rotated.stdout).toContain(secrets[0]);
  });
});

describe('hookwise plugins list', () => {
  it('shows the first-party sources with their ids', async () => {
    const res = await runCli(['plugins', 'list'], tempHome());
    expect(res.code).toBe(0);
    for (const id of ['source:github', 'source:gitlab', 'source:generic', 'source:stripe', 'source:slack', 'source:discord', 'source:twilio'])
      expect(res.stdout).toContain(id);
  });
});
