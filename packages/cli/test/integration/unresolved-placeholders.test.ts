// The README's own prompt, `Summarise: {ref} {pull_request.html_url}`, on a push: {pull_request.html_url} matches
// nothing and reaches the agent literally. The debug log, `deliveries show` and `webhook test` say so.
import { rmSync } from 'node:fs';
import { startGateway, type RunningGateway } from '@hookwise/server';
import { distributionOptions } from '../../src/distribution';
import { logCapture, postSigned, runCli, tempHome, writeConfig } from '../cli-process';

jest.setTimeout(120_000);

const SECRET = 'unresolved-route-secret-0123456789';
const ROUTE = `      routes:\n        pushes:\n          secret: ${SECRET}\n          prompt: "Summarise: {ref} {pull_request.html_url}"\n`;
const LOG = 'log:\n  level: debug\n  format: json\n';

let home: string;
let running: RunningGateway;
let logs: string[];

beforeAll(async () => {
  home = tempHome();
  writeConfig(home, 0, `${ROUTE}${LOG}`);
  const capture = logCapture();
  logs = capture.lines;
  running = await startGateway({ ...(await distributionOptions()), configDir: home, logStream: capture.stream, pollMs: 20 });
  writeConfig(home, running.port, `${ROUTE}${LOG}`);
});

afterAll(async () => {
  await running?.close(1000);
  rmSync(home, { recursive: true, force: true });
});

async function until<T>(read: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a placeholder that matched nothing', () => {
  it('is in the debug log and in deliveries show (text and --json)', async () => {
    const posted = await postSigned(`${running.url}/webhooks/pushes`, SECRET, JSON.stringify({ ref: 'refs/heads/main' }), { 'x-request-id': 'unres-1' });
    expect(posted.status).toBe(202);
    const line = await until(() => logs.find((l) => l.includes('matched nothing in the payload')));
    expect(JSON.parse(line)).toMatchObject({ level: 'debug', route: 'pushes', deliveryId: 'unres-1', unresolved: ['{pull_request.html_url}'] });
    expect(line).not.toContain('{ref}');

    await until(async () => {
      const list = JSON.parse((await runCli(['deliveries', 'list', '--status', 'done', '--json'], home)).stdout) as unknown[];
      return list.length ? list : undefined;
    });
    const shown = await runCli(['deliveries', 'show', 'unres-1'], home);
    expect(shown.stdout).toContain('placeholders: {pull_request.html_url} match nothing in the payload and reach the agent literally');
    // The log destination's receipt, printed once (under its destination), not again as the job's.
    expect(shown.stdout.match(/receipt:/g)).toHaveLength(1);
    const json = JSON.parse((await runCli(['deliveries', 'show', 'unres-1', '--json'], home)).stdout) as { unresolvedPlaceholders?: string[] };
    expect(json.unresolvedPlaceholders).toEqual(['{pull_request.html_url}']);
  });

  it('is listed by webhook test, and not when the payload has it', async () => {
    const missing = await runCli(['webhook', 'test', 'pushes', '--payload', '{"ref":"refs/heads/x"}'], home);
    expect(missing.stdout).toContain('Placeholders: {pull_request.html_url} match nothing');
    const json = JSON.parse((await runCli(['webhook', 'test', 'pushes', '--payload', '{"ref":"refs/heads/x"}', '--json'], home)).stdout) as {
      unresolved_placeholders?: string[];
    };
    expect(json.unresolved_placeholders).toEqual(['{pull_request.html_url}']);
    const full = await runCli(['webhook', 'test', 'pushes', '--payload', '{"ref":"r","pull_request":{"html_url":"https://x.test/1"}}'], home);
    expect(full.stdout).not.toContain('Placeholders:');
  });
});
