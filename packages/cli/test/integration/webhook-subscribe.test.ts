// `hookwise webhook subscribe` and friends without a gateway: output, updates, refusals, skills.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { closedPort, runCli, tempHome, writeConfig } from '../cli-process';

// Each test starts real processes; on a loaded machine they are slow, so allow more than jest's default.
jest.setTimeout(120_000);

let home: string;
let port: number;

beforeAll(async () => {
  home = tempHome();
  port = await closedPort();
  writeConfig(home, port, '      routes:\n        fixed:\n          secret: static-route-secret\n');
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const subscriptions = () => readFileSync(join(home, 'webhook_subscriptions.json'), 'utf8');

describe('hookwise webhook subscribe', () => {
  it('prints URL and secret once; re-subscribing updates the entry and keeps the secret', async () => {
    const created = await runCli(['webhook', 'subscribe', 'other', '--events', 'push', '--deliver', 'log', '--skills', 'webhook-subscriptions'], home);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain("Subscription 'other' created.");
    expect(created.stdout).toContain(`URL:      http://127.0.0.1:${port}/webhooks/other`);
    const secret = /Secret:\s+(\S+)/.exec(created.stdout)?.[1];
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const updated = await runCli(['webhook', 'subscribe', 'other', '--prompt', 'Push to {ref}'], home);
    expect(updated.code).toBe(0);
    expect(updated.stdout).toContain("Subscription 'other' updated.");
    expect(updated.stdout).toContain("Secret:   (unchanged: the route's own secret)");
    expect(updated.stdout).not.toContain(secret);
    const entry = (JSON.parse(subscriptions()) as Record<string, Record<string, unknown>>).other;
    expect(entry).toMatchObject({ prompt: 'Push to {ref}', secret, events: ['push'], skills: ['webhook-subscriptions'], deliver: 'log' });
    expect(Date.parse(entry.updated_at as string)).toBeGreaterThanOrEqual(Date.parse(entry.created_at as string));
  });

  it('refuses a static route name, an unknown deliverer or skill, and a bad name, writing nothing', async () => {
    const before = subscriptions();
    const [fixed, bad, name] = await Promise.all([
      runCli(['webhook', 'subscribe', 'fixed'], home),
      runCli(['webhook', 'subscribe', 'newone', '--deliver', 'carrier-pigeon', '--skills', 'no-such-skill'], home),
      runCli(['webhook', 'subscribe', 'Not Valid'], home),
    ]);
    expect(fixed.code).toBe(1);
    expect(fixed.stderr).toContain("'fixed' is a static route");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/unknown deliver type 'carrier-pigeon'; known: .*\blog\b/);
    expect(bad.stderr).toContain("unknown skill 'no-such-skill'");
    expect(name.code).toBe(1);
    expect(name.stderr).toContain("invalid route name 'Not Valid'");
    expect(subscriptions()).toBe(before);
  });

  it('uses --secret and the public URL, and takes deliver_extra from flags', async () => {
    const home2 = tempHome();
    try {
      writeConfig(home2, 8644, '      public_url: https://hooks.example.com/\n');
      const result = await runCli(
        ['webhook', 'subscribe', 'pr', '--secret', 'sender-secret-123', '--deliver-chat-id', '42', '--deliver-extra', 'repo={repository.full_name}', '--json'],
        home2,
      );
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ url: 'https://hooks.example.com/webhooks/pr', secret: 'sender-secret-123' });
      const entry = (JSON.parse(readFileSync(join(home2, 'webhook_subscriptions.json'), 'utf8')) as Record<string, Record<string, unknown>>).pr;
      expect(entry.deliver_extra).toEqual({ chat_id: '42', repo: '{repository.full_name}' });
    } finally {
      rmSync(home2, { recursive: true, force: true });
    }
  });
});

describe('hookwise webhook test without a gateway', () => {
  it('says "Is the gateway running? (hookwise gateway run)" and exits 1', async () => {
    const result = await runCli(['webhook', 'test', 'other'], home);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`No answer from http://127.0.0.1:${port}/webhooks/other (ECONNREFUSED). Is the gateway running? (hookwise gateway run)`);
  });
});

describe('hookwise skills list', () => {
  it('lists the built-in webhook-subscriptions skill and a user skill from <config_dir>/skills', async () => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(join(home, 'skills', 'triage'), { recursive: true });
    writeFileSync(join(home, 'skills', 'triage', 'SKILL.md'), '---\nname: triage\ndescription: Sorts incoming issues.\n---\nSteps...\n');
    const [table, json] = await Promise.all([runCli(['skills', 'list'], home), runCli(['skills', 'list', '--json'], home)]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/triage\s+\S+\s+Sorts incoming issues\./);
    expect(table.stdout).toMatch(/webhook-subscriptions\s+built-in\s+Create, list, test and remove/);
    const listed = JSON.parse(json.stdout) as Array<{ name: string; builtin: boolean; description: string }>;
    expect(listed.map((s) => [s.name, s.builtin])).toEqual([
      ['triage', false],
      ['webhook-subscriptions', true],
    ]);
  });
});
