// Ten `hookwise webhook subscribe` processes started at once: the file lock and atomic writes lose no entry.
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempHome, writeConfig } from '../cli-process';

it('keeps all 10 entries, each with its own secret, in a file of mode 0600', async () => {
  const home = tempHome();
  try {
    writeConfig(home, 8644);
    const names = Array.from({ length: 10 }, (_, i) => `concurrent-${i}`);
    const results = await Promise.all(names.map((name) => runCli(['webhook', 'subscribe', name, '--events', 'push', '--json'], home)));
    for (const result of results) expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const printed = results.map((r) => JSON.parse(r.stdout) as { name: string; secret: string });

    const file = join(home, 'webhook_subscriptions.json');
    const entries = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { secret: string; events: string[] }>;
    expect(Object.keys(entries).sort()).toEqual([...names].sort());
    for (const { name, secret } of printed) expect(entries[name]).toMatchObject({ secret, events: ['push'] });
    expect(new Set(printed.map((p) => p.secret)).size).toBe(10);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // No temp file or lock is left behind.
    expect(readdirSync(home).sort()).toEqual(['config.yaml', 'webhook_subscriptions.json']);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}, 180_000);
