// Issue 19 with real gateway processes on the SQLite store: a restart between two parts of an answer re-sends
// no part, and a fan-out to [github_comment, slack] with Slack down posts the comment once and Slack later.
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRecordingServer, type RecordedRequest, type RecordingServer } from '@hookwise/testing';
import { ciWebhookPlatform, cli, startGateway, stop, type Gateway } from '../deliveries-process';

jest.setTimeout(90_000);

const SLACK_TOKEN = 'xoxb-000000000000-0000000000000-abcdefabcdefabcdefabcdef';

function home(config: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'hookwise-exactly-once-'));
  writeFileSync(join(dir, 'config.yaml'), config.join('\n') + '\n');
  return dir;
}

async function until<T>(what: string, probe: () => T | undefined | false, withinMs = 40_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const posts = (server: RecordingServer): RecordedRequest[] => server.requests.filter((r) => r.path === '/api/chat.postMessage');
const textOf = (r: RecordedRequest): string => String((r.json as { text?: unknown }).text ?? '');

function slackConfig(api: string): string[] {
  return ['  slack:', '    enabled: true', `    token: ${SLACK_TOKEN}`, `    api_base: ${api}`, '    home_channel: C0123456789'];
}

describe('exactly-once delivery across a kill -9 (SQLite store, real gateway processes)', () => {
  const gateways: Gateway[] = [];
  const servers: RecordingServer[] = [];
  afterEach(async () => {
    for (const g of gateways.splice(0)) await stop(g, 'SIGKILL');
    for (const s of servers.splice(0)) await s.close();
  });

  it('a restart between part 1 and part 2 of a long answer sends part 1 once and part 2 once accepted', async () => {
    // Slack stand-in (chat.postMessage and auth.test as documented: ok: true with ts and channel): part 1 is
    // accepted, part 2 hangs until the gateway is killed; after the restart everything is accepted.
    let hangPart2 = true;
    const slack = await startRecordingServer(async (req) => {
      if (req.path === '/api/auth.test') return { json: { ok: true, url: 'https://example.slack.com/', team: 'T', user: 'bot', team_id: 'T1', user_id: 'U1' } };
      const n = posts(slack).indexOf(req);
      if (n === 1 && hangPart2) return new Promise(() => undefined);
      return { json: { ok: true, channel: 'C0123456789', ts: `1700000000.00000${n}`, message: { text: textOf(req) } } };
    });
    servers.push(slack);
    const dir = home([
      ...ciWebhookPlatform(['prompt: "{text}"', 'deliver: slack']),
      ...slackConfig(slack.url),
      'agent:',
      '  runner: echo',
      'retry:',
      '  max_attempts: 5',
      '  base_delay_seconds: 0.2',
    ]);
    const first = await startGateway(dir);
    gateways.push(first);
    // Two parts of Slack's 4000 characters: 'a' * 3990, a blank line, 'b' * 3990.
    const text = `${'a'.repeat(3990)}\n\n${'b'.repeat(3990)}`;
    const res = await fetch(`${first.url}/webhooks/ci`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'long-1' },
      body: JSON.stringify({ text }),
    });
    expect(res.status).toBe(202);
    await until('part 2 reaches the stand-in', () => posts(slack).length >= 2);
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    hangPart2 = false;
    const second = await startGateway(dir);
    gateways.push(second);
    // The killed gateway's job is taken over once its heartbeat is stale (5 s), then resumes after part 1.
    await second.waitFor(/delivered long-1 on route 'ci' via slack/, 40_000);
    const sent = posts(slack).map(textOf);
    const part1 = sent.filter((t) => t.startsWith('a'));
    const part2 = sent.filter((t) => t.startsWith('b'));
    expect(part1).toHaveLength(1);
    // Part 2 reached the stand-in twice: the hung request (never accepted) and the one after the restart.
    expect(part2).toHaveLength(2);
    const shown = await cli(dir, ['deliveries', 'show', 'long-1', '--json']);
    const job = JSON.parse(shown.stdout) as { status: string; receipt: { ids: string[] }; destinations: Array<{ destination: string; status: string }> };
    expect(job.status).toBe('done');
    expect(job.receipt.ids).toHaveLength(2);
    expect(job.destinations).toEqual([expect.objectContaining({ destination: 'slack', status: 'delivered' })]);
  });

  it('[github_comment, slack] with Slack answering 503 posts the comment once and Slack once it is up', async () => {
    let slackUp = false;
    const slack = await startRecordingServer((req) => {
      if (req.path === '/api/auth.test') return { json: { ok: true, team_id: 'T1', user_id: 'U1' } };
      if (!slackUp) return { status: 503, body: 'Service Unavailable' };
      return { json: { ok: true, channel: 'C0123456789', ts: '1700000000.000100', message: { text: textOf(req) } } };
    });
    servers.push(slack);
    const dir = mkdtempSync(join(tmpdir(), 'hookwise-fanout-'));
    // A fake GitHub CLI: records each call and prints the comment URL as `gh pr comment` does.
    const ghLog = join(dir, 'gh-calls.log');
    const gh = join(dir, 'gh');
    writeFileSync(
      gh,
      `#!${process.execPath}\nconst fs = require('node:fs');\nlet body = '';\nprocess.stdin.on('data', (c) => (body += c)).on('end', () => {\n  fs.appendFileSync(${JSON.stringify(ghLog)}, JSON.stringify({ argv: process.argv.slice(2), body }) + '\\n');\n  process.stdout.write('https://github.com/acme/app/pull/7#issuecomment-1\\n');\n});\n`,
    );
    chmodSync(gh, 0o755);
    writeFileSync(
      join(dir, 'config.yaml'),
      [
        ...ciWebhookPlatform(['prompt: "review {n}"', 'deliver: [github_comment, slack]', 'deliver_extra: { repo: acme/app, pr_number: "7" }']),
        '  github_comment:',
        `    cli_path: ${gh}`,
        ...slackConfig(slack.url),
        'agent:',
        '  runner: echo',
        'retry:',
        '  max_attempts: 20',
        '  base_delay_seconds: 0.2',
        '  max_delay_seconds: 1',
      ].join('\n') + '\n',
    );
    const gateway = await startGateway(dir);
    gateways.push(gateway);
    const res = await fetch(`${gateway.url}/webhooks/ci`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'fan-1' },
      body: JSON.stringify({ n: 1 }),
    });
    expect(res.status).toBe(202);
    await until('Slack refused three attempts', () => posts(slack).length >= 3);
    slackUp = true;
    await gateway.waitFor(/delivered fan-1 on route 'ci' via slack/, 30_000);
    const calls = existsSync(ghLog) ? readFileSync(ghLog, 'utf8').trim().split('\n') : [];
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0]).argv).toEqual(['pr', 'comment', '7', '--repo', 'acme/app', '--body-file', '-']);
    const accepted = posts(slack).filter((_, i) => i >= 3).length;
    expect(accepted).toBeGreaterThanOrEqual(1);
    const shown = await cli(dir, ['deliveries', 'show', 'fan-1', '--json']);
    const job = JSON.parse(shown.stdout) as {
      status: string;
      destinations: Array<{ destination: string; status: string; attempts: number; receipt: unknown }>;
    };
    expect(job.status).toBe('done');
    expect(job.destinations.map((d) => [d.destination, d.status])).toEqual([
      ['github_comment', 'delivered'],
      ['slack', 'delivered'],
    ]);
    expect(job.destinations[0].attempts).toBe(1);
    expect(job.destinations[1].attempts).toBeGreaterThanOrEqual(4);
    const human = await cli(dir, ['deliveries', 'show', 'fan-1']);
    expect(human.stdout).toMatch(/destination github_comment: delivered {3}attempts: 1/);
    expect(human.stdout).toMatch(/destination slack: delivered {3}attempts: \d+/);
  });
});
