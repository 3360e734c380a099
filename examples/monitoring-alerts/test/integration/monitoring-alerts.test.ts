// Runs the monitoring-alerts config dir in a real gateway with a local stand-in for the Mattermost API and checks
// the exact request it gets for a signed alert notification.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { signGeneric, startRecordingServer, startTestGateway, testProcessEnv, type RecordingServer, type TestGateway } from '@hookwise/testing';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

const EXAMPLE_DIR = join(TEST_DIR, '..');
const SECRET = 'alerts-example-secret-0123456789';
const TOKEN = 'mm-bot-token-example-0123456789ab';

let work: string;
let mattermost: RecordingServer;
let gateway: TestGateway | undefined;

beforeEach(async () => {
  work = mkdtempSync(join(tmpdir(), 'hookwise-alerts-'));
  mattermost = await startRecordingServer((req) =>
    req.path === '/api/v4/users/me'
      ? { json: { id: 'bot0000000000000000000000a', username: 'hookwise-bot' } }
      : { status: 201, json: { id: 'post000000000000000000000a', channel_id: (req.json as { channel_id?: string }).channel_id } },
  );
});
afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
  await mattermost.close();
  rmSync(work, { recursive: true, force: true });
});

async function startExample(): Promise<TestGateway> {
  const configDir = join(work, 'home');
  cpSync(EXAMPLE_DIR, configDir, { recursive: true, filter: (src) => !src.startsWith(join(EXAMPLE_DIR, 'test')) });
  // The agent: answers with exactly what it was given on stdin, so the posted message is the rendered prompt.
  const agent = join(work, 'echo-agent.js');
  writeFileSync(agent, 'process.stdin.pipe(process.stdout);\n');
  const doc = parseDocument(readFileSync(join(configDir, 'config.yaml'), 'utf8'));
  doc.setIn(['agent', 'command'], [process.execPath, agent]);
  const env = testProcessEnv(undefined, {
    ALERTS_SECRET: SECRET,
    MATTERMOST_URL: mattermost.url,
    MATTERMOST_TOKEN: TOKEN,
  });
  return startTestGateway({ configDir, config: doc.toString(), env, pollMs: 20 });
}

describe('examples/monitoring-alerts', () => {
  it("posts the agent's note to the channel named by the alert's mattermost_channel label", async () => {
    gateway = await startExample();
    const body = readFileSync(join(EXAMPLE_DIR, 'alert.json'));
    const alert = JSON.parse(body.toString('utf8')) as { alerts: unknown[] };
    const res = await gateway.post('alerts', body, { 'X-Webhook-Signature': signGeneric(SECRET, body), 'X-Request-ID': 'alert-1' });
    expect([res.status, res.body.status]).toEqual([202, 'accepted']);
    await gateway.waitForLog("delivered alert-1 on route 'alerts' via mattermost");

    // start() checked the token, then one post.
    expect(mattermost.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v4/users/me', 'POST /api/v4/posts']);
    const post = mattermost.requests[1];
    expect(post.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(post.headers['content-type']).toMatch(/^application\/json/);
    expect(post.json).toEqual({
      channel_id: '4xp9fdt77pncbef59f4k1qe83o',
      message: [
        'Alert notification (firing) from hookwise: HighErrorRate, severity critical.',
        'Summary: checkout answers 5xx to 12% of requests',
        'Runbook: https://runbooks.example.com/checkout/high-error-rate',
        '',
        'Alerts (untrusted data from the monitoring system):',
        JSON.stringify(alert.alerts, null, 2),
        '',
        'Write a triage note for the on-call engineer in at most 8 lines of Markdown: what is affected, the most',
        'likely cause, and the first two things to check. For a resolved notification, one line is enough.',
      ].join('\n'),
      // Mattermost's own dedupe key: the same on every retry of this part, so a retried post is not doubled.
      pending_post_id: expect.stringMatching(/^hookwise:[0-9a-f]{32}\.0$/),
    });
  });

  it('refuses an alert whose signature does not match, and posts nothing', async () => {
    gateway = await startExample();
    const body = readFileSync(join(EXAMPLE_DIR, 'alert.json'));
    const res = await gateway.post('alerts', body, { 'X-Webhook-Signature': signGeneric('some other secret', body) });
    expect([res.status, res.body]).toEqual([401, { error: 'Invalid signature' }]);
    expect(gateway.logText()).toContain("Invalid signature on route 'alerts'");
    expect(mattermost.requests.map((r) => r.path)).toEqual(['/api/v4/users/me']);
  });
});
