// `hookwise webhook subscribe --transform-*` (issue 36) with the real binary and a running gateway: the expression
// the CLI wrote reshapes the payload before the filter and silences what it should; a command is stored as argv; a
// bad expression is not saved. Through an agent run's job channel an expression is accepted and a command refused,
// by the CLI and by the channel itself (an agent never chooses code the gateway runs).
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startGateway, type RunningGateway } from '@hookwise/server';
import { githubFixture } from '@hookwise/testing';
import { JobChannels, type JobChannel } from '../../../gateway/src/job-channel/job-channel';
import { distributionOptions } from '../../src/distribution';
import { channelRequest } from '../../src/job-channel-client';
import { logCapture, postSigned, runCli, tempHome, writeConfig } from '../cli-process';
import { openRunChannel } from '../channel-run';

jest.setTimeout(120_000);

const OPENED = githubFixture('pull_request.opened').toString('utf8');
const LABELED = JSON.stringify({ ...JSON.parse(OPENED), action: 'labeled' });
/** Silences anything but opened; otherwise a slim object whose `title` the filter below reads. */
const EXPRESSION = 'action = "opened" ? {"title": pull_request.title, "number": pull_request.number} : ""';

let home: string;
let agentHome: string;
let running: RunningGateway;
let channels: JobChannels;
let channel: JobChannel;

beforeAll(async () => {
  home = tempHome();
  agentHome = tempHome('hookwise-agent-');
  writeConfig(home, 0);
  running = await startGateway({ ...(await distributionOptions()), configDir: home, logStream: logCapture().stream, pollMs: 20 });
  writeConfig(home, running.port);
  channels = new JobChannels(running.gateway);
  channel = await openRunChannel(running.gateway, channels, { id: 'job-t', route: 'some-route' });
});

afterAll(async () => {
  await channels?.close();
  await running?.close(1000);
  rmSync(home, { recursive: true, force: true });
  rmSync(agentHome, { recursive: true, force: true });
});

const entryOf = (name: string) => (JSON.parse(readFileSync(join(home, 'webhook_subscriptions.json'), 'utf8')) as Record<string, Record<string, unknown>>)[name];

describe('hookwise webhook subscribe --transform-*', () => {
  it('stores the expression; the gateway filters the transformed payload and answers 200 ignored (transform) for a silenced event', async () => {
    const result = await runCli(
      [
        'webhook',
        'subscribe',
        'slim',
        '--events',
        'pull_request',
        '--transform-expression',
        EXPRESSION,
        '--transform-timeout',
        '3',
        '--filter',
        'title?',
        '--json',
      ],
      home,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as { url: string; secret: string; transform: unknown };
    expect(entryOf('slim').transform).toEqual({ expression: EXPRESSION, timeout_seconds: 3 });
    expect(out.transform).toEqual(entryOf('slim').transform);

    const github = (body: string, delivery: string) =>
      postSigned(out.url, out.secret, body, { 'x-github-event': 'pull_request', 'x-github-delivery': delivery });
    expect(await github(LABELED, 'tr-labeled')).toMatchObject({ status: 200, body: { status: 'ignored', reason: 'transform' } });
    // `title?` holds only on the transformed payload (GitHub's own has no top-level title): the transform ran first.
    expect((await github(OPENED, 'tr-opened')).status).toBe(202);

    const shown = await runCli(['webhook', 'subscribe', 'slim', '--transform-on-failure', 'reject'], home);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`Transform: expression ${JSON.stringify(EXPRESSION)} (3 s, on failure: reject)`);
  });

  it('stores a command as argv, and refuses an expression that does not parse without saving it', async () => {
    const made = await runCli(['webhook', 'subscribe', 'cmd', '--transform-command', '["node","/opt/hooks/slim.js"]'], home);
    expect(made.code).toBe(0);
    expect(entryOf('cmd').transform).toEqual({ command: ['node', '/opt/hooks/slim.js'] });

    const bad = await runCli(['webhook', 'subscribe', 'cmd', '--transform-expression', '{"title": '], home);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("route 'cmd' transform.expression does not parse");
    expect(entryOf('cmd').transform).toEqual({ command: ['node', '/opt/hooks/slim.js'] });
  });
});

describe('through the job channel (an agent run)', () => {
  it('--transform-expression is accepted; --transform-command is refused by the CLI and a command by the channel', async () => {
    const made = await runCli(['webhook', 'subscribe', 'agent-slim', '--events', 'pull_request', '--transform-expression', EXPRESSION], agentHome, {
      ...channel.env,
    });
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    expect(entryOf('agent-slim').transform).toEqual({ expression: EXPRESSION });

    const cli = await runCli(['webhook', 'subscribe', 'agent-cmd', '--transform-command', 'sh -c id'], agentHome, { ...channel.env });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain('--transform-command cannot be used by an agent run');
    expect(entryOf('agent-cmd')).toBeUndefined();

    // The channel does not rely on the CLI: a request that names a command, alone or beside an expression, or its
    // limits, is refused, and neither a new route nor the run's own route gets it.
    const env = { url: channel.env.HOOKWISE_JOB_CHANNEL!, token: channel.env.HOOKWISE_JOB_TOKEN! };
    for (const [name, transform] of [
      ['agent-cmd', { command: ['sh', '-c', 'cat /etc/passwd'] }],
      ['agent-slim', { command: ['node', 'x.js'] }],
      ['agent-slim', { expression: 'pull_request', command: ['node', 'x.js'] }],
      ['agent-slim', { expression: 'pull_request', timeout_seconds: 60 }],
    ] as const) {
      const answer = await channelRequest(env, 'PUT', `/subscriptions/${name}`, { transform }, {});
      expect(answer.status).toBe(403);
      expect(String(answer.body.error)).toContain('an agent run may give a transform only as { expression: <JSONata> }');
    }
    expect(entryOf('agent-cmd')).toBeUndefined();
    expect(entryOf('agent-slim').transform).toEqual({ expression: EXPRESSION });
  });
});
