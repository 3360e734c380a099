// The config dir the `routes try` tests trial on: route `ci` (prompt "old {n}: {title}", echo agent, no auth) whose
// three events a real `gateway run` answered and delivered to a recording stand-in of a Slack incoming webhook.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { webhookPlatformLines, type RecordingServer } from '@hookwise/testing';
import { tempHome } from './cli-process';
import { startGateway, stop } from './deliveries-process';

/** The events' titles, in the order sent (their `n` is 1, 2, 3). */
export const TRIAL_TITLES = ['keep this', 'drop that', 'keep too'];

/**
 * A fresh config dir (`homePrefix`) whose events were answered and delivered to `destination`; their request ids
 * are `<idPrefix>-1` to `-3`. `storeLines`: a `store:` block for another store than the default SQLite file.
 */
export async function answeredTrialHome(destination: RecordingServer, homePrefix: string, idPrefix: string, storeLines: string[] = []): Promise<string> {
  const home = tempHome(homePrefix);
  writeFileSync(
    join(home, 'config.yaml'),
    [
      ...webhookPlatformLines({ ci: ['secret: INSECURE_NO_AUTH', 'prompt: "old {n}: {title}"', 'deliver: slack'] }),
      '  slack:',
      '    enabled: true',
      `    webhook_url: ${destination.url}/hook`,
      'agent:',
      '  runner: echo',
      'retry:',
      '  max_attempts: 1',
      ...storeLines,
    ].join('\n'),
  );
  const gateway = await startGateway(home);
  try {
    for (const [i, title] of TRIAL_TITLES.entries()) {
      const res = await fetch(`${gateway.url}/webhooks/ci`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': `${idPrefix}-${i + 1}` },
        body: JSON.stringify({ n: i + 1, title }),
      });
      expect(res.status).toBe(202);
    }
    const deadline = Date.now() + 20_000;
    while (destination.requests.length < TRIAL_TITLES.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  } finally {
    await stop(gateway);
  }
  expect(destination.requests).toHaveLength(TRIAL_TITLES.length);
  return home;
}
