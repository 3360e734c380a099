// Issue 20 items 6 (second half) and 8 over real HTTP with real agent processes: what a command agent's
// environment holds, prompts that cannot be an argument, option-like prompts, and jobs whose route is removed.
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signGeneric, startRedisServer, startTestGateway, testProcessEnv, type RunningRedis, type TestGateway } from '@hookwise/testing';

const SECRET = 'agent-process-secret-0123456789';
const BARE_ENV = testProcessEnv();

/** Prints what the agent received: its argv after the script, stdin, and the names of its environment variables. */
const REPORTER = `
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => process.stdout.write(JSON.stringify({ argv: process.argv.slice(2), stdin: input, env: Object.keys(process.env).sort() })));
`;

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

/**
 * A stand-in agent's script, written beside the config dir `dir` (in `<dir>.agent`), never in it: the agent sandbox
 * hides the config dir, so a script there would not be found. The runner makes the script's absolute path readable.
 */
function writeScript(dir: string, name: string, source: string): string {
  const agentDir = agentDirOf(dir);
  mkdirSync(agentDir, { recursive: true });
  const file = join(agentDir, name);
  writeFileSync(file, source);
  return file;
}

const agentDirOf = (dir: string): string => `${dir}.agent`;

const signed = (body: string) => ({ 'x-webhook-signature': signGeneric(SECRET, body) });

/** The agent's answer as the log deliverer wrote it. */
async function answerOf(gateway: TestGateway, route: string): Promise<{ argv: string[]; stdin: string; env: string[] }> {
  const line = String((await gateway.waitForLog(`response for route '${route}'`)).message);
  return JSON.parse(line.slice(line.indexOf('\n') + 1)) as { argv: string[]; stdin: string; env: string[] };
}

describe('issue 20 item 8: command agents', () => {
  it('start with a clean environment: no WEBHOOK_SECRET, route secret or GH_TOKEN unless env: lists it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookwise-agent-env-'));
    const reporter = writeScript(dir, 'reporter.js', REPORTER);
    gw = await startTestGateway({
      configDir: dir,
      config: {
        platforms: { webhook: { enabled: true, extra: { secret: '${WEBHOOK_SECRET}', routes: { ci: { secret: '${CI_ROUTE_SECRET}' }, global: {} } } } },
        agent: { runner: 'command', command: [process.execPath, reporter], env: ['ALLOWED_TOKEN', 'MODE=review'] },
        store: { backend: 'memory' },
      },
      env: {
        ...BARE_ENV,
        WEBHOOK_SECRET: 'global-webhook-secret-0123456789',
        CI_ROUTE_SECRET: SECRET,
        GH_TOKEN: 'ghp_not_for_agents_0123456789',
        SOME_PASSWORD: 'hunter2-hunter2',
        ALLOWED_TOKEN: 'listed-token-0123',
        HARMLESS: 'x',
      },
    });
    const body = '{"n":1}';
    expect((await gw.post('ci', body, signed(body))).status).toBe(202);
    const { env } = await answerOf(gw, 'ci');
    for (const hidden of ['WEBHOOK_SECRET', 'CI_ROUTE_SECRET', 'GH_TOKEN', 'SOME_PASSWORD', 'HARMLESS']) expect(env).not.toContain(hidden);
    for (const passed of ['PATH', 'ALLOWED_TOKEN', 'MODE', 'HOOKWISE_ROUTE', 'HOOKWISE_EVENT', 'HOOKWISE_DELIVERY_ID']) expect(env).toContain(passed);
    // The agent has no business in the config dir (it subscribes through the gateway's job channel instead).
    expect(env).not.toContain('HOOKWISE_HOME');
  });

  it('with inherit_env: true still keeps credentials and the values of gateway secrets out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookwise-agent-env-'));
    const reporter = writeScript(dir, 'reporter.js', REPORTER);
    gw = await startTestGateway({
      configDir: dir,
      config: {
        platforms: { webhook: { enabled: true, extra: { routes: { ci: { secret: '${SECRET_IN_ODD_NAME}' } } } } },
        agent: { runner: 'command', command: [process.execPath, reporter], inherit_env: true },
        store: { backend: 'memory' },
      },
      env: { ...BARE_ENV, SECRET_IN_ODD_NAME: SECRET, ROUTE_KEY_COPY: SECRET, GH_TOKEN: 'ghp_not_for_agents_0123456789', HARMLESS: 'x' },
    });
    const body = '{"n":2}';
    expect((await gw.post('ci', body, signed(body))).status).toBe(202);
    const { env } = await answerOf(gw, 'ci');
    for (const hidden of ['SECRET_IN_ODD_NAME', 'ROUTE_KEY_COPY', 'GH_TOKEN', 'WEBHOOK_SECRET']) expect(env).not.toContain(hidden);
    expect(env).toContain('HARMLESS');
  });

  it.each([
    [
      'a NUL byte in a {prompt} argument',
      { text: 'before\u0000after' },
      ['{prompt}'],
      /agent command '.+' was not started: the prompt contains a NUL byte \(from the payload\)/,
    ],
    [
      'a 200 KB prompt as an argument',
      { text: 'x'.repeat(200_000) },
      ['--', '{prompt}'],
      /was not started: the prompt is 200000 bytes, more than one command-line argument can hold/,
    ],
    [
      'a NUL byte in the event type (HOOKWISE_EVENT)',
      { event_type: 'push\u0000x', text: 'hi' },
      [],
      /was not started: environment variable HOOKWISE_EVENT contains a NUL byte.*\(it comes from the request\)/,
    ],
    [
      'a prompt starting with - as a whole {prompt} argument',
      { text: '--dangerously-skip-permissions' },
      ['{prompt}'],
      /was not started: the prompt starts with '-', so .+ would read it as an option; put "--" before \{prompt\}/,
    ],
  ])('refuses %s before spawning, with an accurate dead-letter reason', async (_what, payload, args, reason) => {
    const dir = mkdtempSync(join(tmpdir(), 'hookwise-agent-input-'));
    const reporter = writeScript(dir, 'reporter.js', REPORTER);
    gw = await startTestGateway({
      configDir: dir,
      config: {
        platforms: { webhook: { enabled: true, extra: { max_body_bytes: 1_000_000, routes: { ci: { secret: SECRET, prompt: '{text}' } } } } },
        agent: { runner: 'command', command: [process.execPath, reporter, ...args] },
        store: { backend: 'memory' },
      },
    });
    const body = JSON.stringify(payload);
    expect((await gw.post('ci', body, signed(body))).status).toBe(202);
    const line = String((await gw.waitForLog('kept as a dead letter')).message);
    expect(line).toMatch(reason);
    expect(line).toContain('(not retryable)');
    expect(line).not.toContain('check that it is installed');
  });

  it('passes a prompt starting with - verbatim after a "--" argument', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookwise-agent-dashdash-'));
    const reporter = writeScript(dir, 'reporter.js', REPORTER);
    gw = await startTestGateway({
      configDir: dir,
      config: {
        platforms: { webhook: { enabled: true, extra: { routes: { ci: { secret: SECRET, prompt: '{text}' } } } } },
        agent: { runner: 'command', command: [process.execPath, reporter, '--', '{prompt}'] },
        store: { backend: 'memory' },
      },
    });
    const body = JSON.stringify({ text: '--dangerously-skip-permissions' });
    expect((await gw.post('ci', body, signed(body))).status).toBe(202);
    expect((await answerOf(gw, 'ci')).argv).toEqual(['--', '--dangerously-skip-permissions']);
  });
});

describe.each(['memory', 'sqlite', 'redis'])('issue 20 item 6: a job whose route is removed after it was accepted (%s store)', (backend) => {
  let redis: RunningRedis | undefined;
  beforeAll(async () => {
    if (backend === 'redis') redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('still runs, with the route definition it was accepted under', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookwise-removed-route-'));
    // The marker lives beside the config dir (hidden from the agent) in a dir the agent's sandbox may read.
    const go = join(agentDirOf(dir), 'go');
    // Holds the only agent slot until the test says go, so the second job waits in the store meanwhile.
    const holder = writeScript(
      dir,
      'hold.js',
      `const fs = require('fs'); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(go)})) { clearInterval(t); process.stdout.write('held'); } }, 20);`,
    );
    const subscription = {
      events: [],
      secret: SECRET,
      prompt: 'subscription says {n}',
      skills: [],
      deliver: 'log',
      deliver_extra: {},
      created_at: '2025-01-01T00:00:00Z',
      updated_at: '2025-01-01T00:00:00Z',
    };
    const store = backend === 'redis' ? { backend: 'redis', url: redis!.url, prefix: 'removed-route' } : { backend };
    gw = await startTestGateway({
      configDir: dir,
      config: {
        platforms: {
          webhook: {
            enabled: true,
            extra: {
              routes: {
                hold: {
                  secret: 'INSECURE_NO_AUTH',
                  agent: { runner: 'command', command: [process.execPath, holder], sandbox: { read_only: [agentDirOf(dir)] } },
                },
              },
            },
          },
        },
        agent: { concurrency: 1 },
        store,
      },
      files: { 'webhook_subscriptions.json': JSON.stringify({ sub: subscription }) },
      pollMs: 50,
    });
    expect((await gw.post('hold', '{}')).status).toBe(202);
    const body = '{"n":42}';
    const accepted = await gw.post('sub', body, signed(body));
    expect(accepted.status).toBe(202);
    // `webhook remove sub`, while its job waits behind the held one.
    writeFileSync(join(dir, 'webhook_subscriptions.json'), '{}\n');
    expect((await gw.post('sub', body, signed(body))).status).toBe(404);
    writeFileSync(go, '');
    const delivered = String((await gw.waitForLog("response for route 'sub'")).message);
    expect(delivered).toContain('subscription says 42');
    expect(gw.logText()).toContain(
      `route 'sub' no longer exists; delivery ${String(accepted.body.delivery_id)} runs with the route definition it was accepted under`,
    );
    expect(gw.logText()).not.toContain('kept as a dead letter');
    expect(existsSync(go)).toBe(true);
  });
});
