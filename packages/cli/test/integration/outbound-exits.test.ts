// One exit for text: everything that leaves the gateway carrying text an agent or a payload influenced passes the
// gateway's OutboundScrubber (packages/gateway/src/observe/outbound-scrub.ts). An obedient `command` agent (it runs
// the shell lines its payload carries) in a real `hookwise gateway run` process, with agent.sandbox.mode off (the
// agent reads whatever it likes), puts three secrets in every encoding into each exit, and each exit's stand-in
// (recording servers for Telegram, the GitHub API, the lifecycle webhook target and a model) gets none of them:
// a registered route secret, a registered platform token, and a credential-named variable that only the gateway's
// environment holds. The guard at the end fails when an exit is added without a case here, or when a file starts
// sending text through one of the sink primitives without being listed with the exit that scrubs it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { OUTBOUND_EXITS, type OutboundExit } from '@hookwise/gateway';
import { probeSandbox } from '@hookwise/sandbox';
import { emptyHome, freePort, signGeneric, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import { CLI_BIN, runCli } from '../cli-process';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..', '..', '..');

/** The secrets put into every exit: how the gateway holds each is the point. */
const SECRETS = {
  // Registered: the global webhook secret (config.yaml ${WEBHOOK_SECRET} from .env).
  WEBHOOK_SECRET: 'exits-webhook-secret/5f1c+0a9e7d3b',
  // Registered by the Telegram deliverer; in .env under a credential name.
  TELEGRAM_BOT_TOKEN: '123456:exits-bot-token-AAbbCCddEEff',
  // Only in the gateway process's environment, registered nowhere: the credential-name rule.
  LEAK_API_KEY: 'exits-env-only-key+93be07/c4d8e1',
} as const;

function base32(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out + '='.repeat((8 - (out.length % 8)) % 8);
}

/** Every encoding each exit is tested in. */
const ENCODINGS: Record<string, (secret: string) => string> = {
  raw: (s) => s,
  url: (s) => encodeURIComponent(s),
  form: (s) => new URLSearchParams([['', s]]).toString().slice(1),
  json: (s) => s.replace(/\//g, '\\/'),
  base64: (s) => Buffer.from(s).toString('base64'),
  base64url: (s) => Buffer.from(s).toString('base64url'),
  hex: (s) => Buffer.from(s).toString('hex'),
  HEX: (s) => Buffer.from(s).toString('hex').toUpperCase(),
  base32: (s) => base32(Buffer.from(s)),
  upper: (s) => s.toUpperCase(),
  lower: (s) => s.toLowerCase(),
  spaced: (s) => s.replace(/(.{4})/g, '$1 ').trim(),
  lines: (s) => s.replace(/(.{5})/g, '$1\n').trim(),
  reversed: (s) => [...s].reverse().join(''),
};

const FORMS = Object.values(SECRETS).flatMap((secret) => Object.values(ENCODINGS).map((encode) => encode(secret)));
const LINES = FORMS.length;

/** What the agent (or the payload) writes into an exit: one labelled line per secret and encoding. */
function leak(tag: string): string {
  return Object.entries(SECRETS)
    .flatMap(([name, secret]) => Object.entries(ENCODINGS).map(([encoding, encode]) => `${tag} ${name} ${encoding}: ${encode(secret)}`))
    .join('\n');
}

/** Every string inside a value, one per line (a parsed record's answers, errors, ...). */
function strings(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') return Object.values(value).map(strings).join('\n');
  return '';
}

/**
 * No form of any secret in `text`, and each labelled line of `tag` that it holds reads `[REDACTED]` after its
 * label (at least `min` of them: a tail may be cut). `except`: encodings not checked line by line, with the reason.
 */
function expectScrubbed(text: string, tag: string, min = LINES, except: string[] = []): void {
  for (const form of FORMS) expect(text).not.toContain(form);
  const labelled = [...text.matchAll(new RegExp(`${tag} (\\w+) (\\w+): ?(.{0,10})`, 'g'))].filter((m) => !except.includes(m[2]));
  expect(labelled.length).toBeGreaterThanOrEqual(min - except.length * Object.keys(SECRETS).length);
  for (const m of labelled) expect(`${m[1]} ${m[2]}: ${m[3]}`).toBe(`${m[1]} ${m[2]}: [REDACTED]`);
}

// The obedient agent: every line of its prompt that starts with "RUN: " goes to the shell.
const OBEDIENT = ['/bin/sh', '-c', 'exec 2>&1; eval "$(sed -n "s/^RUN: //p")"; exit 0'];
// The same, its stderr left apart and its exit status kept: a failing run.
const FAILING = ['/bin/sh', '-c', 'eval "$(sed -n "s/^RUN: //p")"'];
// Calls a job channel tool the way an MCP client does (JSON-RPC over streamable HTTP): `node mcp.js <tool> <args.json>`;
// through HTTP_PROXY when the sandbox sets one (its only way out), as a well-behaved client does.
const MCP = `
const http = require('http');
const [name, file] = process.argv.slice(2);
const url = process.env.HOOKWISE_JOB_CHANNEL;
if (!url) { console.log('mcp ' + name + ': no job channel'); process.exit(0); }
const proxy = process.env.HTTP_PROXY || process.env.http_proxy;
const via = new URL(proxy || url);
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: JSON.parse(require('fs').readFileSync(file, 'utf8')) } });
const headers = { authorization: 'Bearer ' + process.env.HOOKWISE_JOB_TOKEN, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const req = http.request({ method: 'POST', host: via.hostname, port: via.port, path: proxy ? url : new URL(url).pathname, headers }, (res) => {
  let text = '';
  res.on('data', (c) => (text += c)).on('end', () => console.log('mcp ' + name + ': ' + text.slice(0, 200)));
});
req.on('error', (e) => console.log('mcp ' + name + ': error ' + e.message));
req.end(body);
`;

interface ChatMessage {
  role: string;
  content?: string | null;
}

let dir: string;
let tools: string;
let child: ChildProcess;
let output = '';
let port: number;
let telegram: RecordingServer;
let github: RecordingServer;
let notify: RecordingServer;
let model: RecordingServer;
const envOnly = { LEAK_API_KEY: SECRETS.LEAK_API_KEY };

async function post(route: string, payload: Record<string, unknown>, id: string): Promise<Response> {
  const body = JSON.stringify(payload);
  return fetch(`http://127.0.0.1:${port}/webhooks/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signGeneric(SECRETS.WEBHOOK_SECRET, body), 'x-request-id': id },
    body,
  });
}

async function until<T>(what: string, found: () => T | undefined): Promise<T> {
  const deadline = Date.now() + 40_000;
  for (;;) {
    const value = found();
    if (value !== undefined) return value;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${what} never came; gateway output:\n${output.slice(-6000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** What the Telegram stand-in received whose text holds `tag`. */
const telegramText = (tag: string) => () => {
  const texts = telegram.requests.filter((r) => r.path.endsWith('/sendMessage')).map((r) => String((r.json as { text?: unknown }).text));
  const found = texts.filter((t) => t.includes(`${tag} WEBHOOK_SECRET raw`)).join('\n');
  return found || undefined;
};

async function cli(...args: string[]): Promise<string> {
  const result = await runCli(args, dir, envOnly);
  if (result.code !== 0) throw new Error(`hookwise ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result.stdout;
}

/** Each exit's case: a secret in every encoding put into it arrives scrubbed. The guard below compares these names. */
const EXIT_CASES: Record<OutboundExit, string[]> = {
  answer: ['the answer of a run, delivered and stored'],
  'action-input': ['github.comment’s body', 'message’s text'],
  'deliver-only': ['a deliver_only answer'],
  trial: ['a trial, printed and stored'],
  failure: ['the failure’s log line', 'the stored job error', 'the lifecycle events’ error text'],
  'lifecycle-webhook': ['the lifecycle webhook body (a payload’s event type in its facts)'],
  'plugin-text': ['an agent’s stderr lines in the log', 'the terminal tool’s output sent to a model'],
  // Its case needs an MCP client: packages/server/test/integration/mcp-private-fields.test.ts (poll, stream, webhook).
  'mcp-event': ['an MCP Events occurrence’s data, polled, streamed and posted to a subscriber'],
};

// The scrubber is not the sandbox: the same cases with the agent outside it (it reads whatever it likes) and inside.
describe.each(['off', 'required'] as const)('every exit for text, in every encoding (agent.sandbox.mode %s)', (mode) => {
  let skip: string | undefined;

  beforeAll(async () => {
    if (mode === 'required') {
      const found = await probeSandbox();
      if (!found.available) return void (skip = found.reason);
    }
    output = '';
    dir = mkdtempSync(join(tmpdir(), 'hw-exits-config-'));
    tools = mkdtempSync(join(tmpdir(), 'hw-exits-tools-'));
    let messageId = 0;
    telegram = await startRecordingServer((req) =>
      req.path.endsWith('/getMe')
        ? { json: { ok: true, result: { id: 1, is_bot: true, first_name: 'stand-in', username: 'stand_in_bot' } } }
        : { json: { ok: true, result: { message_id: ++messageId, date: 1_700_000_000, chat: { id: 42 } } } },
    );
    github = await startRecordingServer(() => ({ status: 201, json: { id: 99, html_url: 'https://github.example/octo/app/issues/7#99' } }));
    notify = await startRecordingServer(() => ({ status: 200, body: 'ok' }));
    // A model that does what the payload says: one terminal call with the prompt's RUN line, then an answer.
    model = await startRecordingServer((req) => {
      const messages = ((req.json as { messages?: ChatMessage[] } | undefined)?.messages ?? []).filter((m) => m.role !== 'system');
      const last = messages[messages.length - 1];
      const command = /^RUN: (.*)$/m.exec(String(last?.content))?.[1] ?? 'echo no RUN line';
      const message =
        last?.role === 'tool'
          ? { role: 'assistant', content: 'tool ran' }
          : {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'call-1', type: 'function', function: { name: 'terminal', arguments: JSON.stringify({ command }) } }],
            };
      return {
        json: {
          id: 'chatcmpl-exits',
          object: 'chat.completion',
          created: 1_700_000_000,
          model: 'obedient',
          choices: [{ index: 0, message, finish_reason: 'tool_calls' in message ? 'tool_calls' : 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        },
      };
    });
    writeFileSync(join(tools, 'mcp.js'), MCP);
    for (const tag of ['answer', 'trial', 'failure', 'tool']) writeFileSync(join(tools, `${tag}.txt`), `${leak(tag)}\n`);
    writeFileSync(join(tools, 'comment.json'), JSON.stringify({ body: leak('comment') }));
    writeFileSync(join(tools, 'message.json'), JSON.stringify({ to: 'telegram', text: leak('message') }));
    port = await freePort();
    writeFileSync(
      join(dir, '.env'),
      `WEBHOOK_SECRET=${SECRETS.WEBHOOK_SECRET}\nTELEGRAM_BOT_TOKEN=${SECRETS.TELEGRAM_BOT_TOKEN}\nGH_TOKEN=ghp_exitsStandInToken0123456789\nGITHUB_API_URL=${github.url}\n`,
      { mode: 0o600 },
    );
    const toTelegram = { deliver: 'telegram', deliver_extra: { chat_id: '42' } };
    const config = {
      platforms: {
        webhook: {
          enabled: true,
          extra: {
            host: '127.0.0.1',
            port,
            secret: '${WEBHOOK_SECRET}',
            routes: {
              probe: { prompt: 'RUN: {script}', ...toTelegram, actions: { 'github.comment': {}, message: { to: ['telegram'] } } },
              only: { prompt: '{text}', deliver_only: true, ...toTelegram },
              fail: { prompt: 'RUN: {script}', ...toTelegram, agent: { runner: 'command', command: FAILING } },
              tool: {
                prompt: 'RUN: {script}',
                ...toTelegram,
                agent: { runner: 'openai', model: 'obedient', base_url: `${model.url}/v1`, api_key_env: 'OPENAI_API_KEY', tools: ['terminal'] },
              },
            },
          },
        },
        telegram: { enabled: true, token: '${TELEGRAM_BOT_TOKEN}', api_base: telegram.url },
        github_comment: { enabled: true },
      },
      agent: { runner: 'command', command: OBEDIENT, timeout_seconds: 30, sandbox: { mode, read_only: [tools] } },
      notify: [
        {
          url: `${notify.url}/hook`,
          secret: `whsec_${Buffer.from('exits-notify-key-0123456789').toString('base64')}`,
          events: ['accepted', 'agent_finished', 'dead_lettered'],
        },
      ],
      retry: { max_attempts: 1 },
      store: { backend: 'sqlite', path: 'hookwise.sqlite' },
    };
    writeFileSync(join(dir, 'config.yaml'), JSON.stringify(config, null, 2));
    child = spawn(process.execPath, [CLI_BIN, 'gateway', 'run', '--log-format', 'json'], {
      env: { PATH: process.env.PATH, HOME: emptyHome(), HOOKWISE_HOME: dir, OPENAI_API_KEY: 'sk-exits-stand-in-key-0123456789', ...envOnly },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const deadline = Date.now() + 30_000;
    while (!output.includes('listening on')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the gateway did not start (exit ${child.exitCode}):\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 60_000);

  afterAll(async () => {
    if (skip) return;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await Promise.all([telegram, github, notify, model].map((server) => server?.close()));
    for (const path of [dir, tools]) if (path) rmSync(path, { recursive: true, force: true });
  });

  it('answer and action inputs: the answer, github.comment’s body and message’s text reach their stand-ins scrubbed', async () => {
    if (skip) return console.warn(`skipped: ${skip}`);
    const script = `cat ${tools}/answer.txt; node ${tools}/mcp.js github.comment ${tools}/comment.json; node ${tools}/mcp.js message ${tools}/message.json`;
    expect((await post('probe', { script, repository: { full_name: 'octo/app' }, issue: { number: 7 } }, 'exits-probe-1')).status).toBe(202);
    expectScrubbed(await until('the answer', telegramText('answer')), 'answer');
    expectScrubbed(await until('the message action', telegramText('message')), 'message');
    const comment = await until('the comment', () => github.requests.find((r) => r.path.endsWith('/issues/7/comments')));
    expectScrubbed(String((comment.json as { body?: unknown }).body), 'comment');
    // The stored run: its answer and the actions' recorded inputs.
    const stored = JSON.parse(await cli('deliveries', 'show', 'exits-probe-1', '--json')) as Record<string, unknown>;
    const text = strings(stored);
    expectScrubbed(text, 'answer');
    expectScrubbed(text, 'comment');
  });

  it('deliver-only: the payload’s text, rendered as the answer, reaches Telegram scrubbed', async () => {
    if (skip) return console.warn(`skipped: ${skip}`);
    const res = await post('only', { text: leak('only') }, 'exits-only-1');
    expect([200, 202]).toContain(res.status);
    expectScrubbed(await until('the deliver_only answer', telegramText('only')), 'only');
  });

  it('failure: stderr in the log, the stored job error and the lifecycle webhooks are scrubbed', async () => {
    if (skip) return console.warn(`skipped: ${skip}`);
    expect((await post('fail', { script: `cat ${tools}/failure.txt >&2; exit 3` }, 'exits-fail-1')).status).toBe(202);
    const dead = await until('the dead_lettered webhook', () => notify.requests.find((r) => String(r.body).includes('hookwise.dead_lettered')));
    const finished = notify.requests.find((r) => String(r.body).includes('hookwise.agent_finished') && String(r.body).includes('exits-fail-1'));
    expect(finished).toBeDefined();
    // The stderr tail is the last 2000 characters: the lines before it are cut.
    for (const request of [dead, finished!]) expectScrubbed(strings(request.json), 'failure', 20);
    const stored = JSON.parse(await cli('deliveries', 'show', 'exits-fail-1', '--json')) as { status: string; errors: Array<{ message: string }> };
    expect(stored.status).toBe('dead');
    expectScrubbed(strings(stored.errors), 'failure', 20);
    await until('the dead letter log line', () => (output.includes('kept as a dead letter') ? true : undefined));
    // Stderr lines are logged one by one, at most 20 of them and a tail (agent.max_output_kb): a secret cut over
    // several lines (`lines`) shows as fragments there, never whole (the failure text above, which holds the lines
    // together, has it scrubbed).
    expectScrubbed(output, 'failure', 20, ['lines']);
    expect(output).toContain('stderr] failure WEBHOOK_SECRET raw: [REDACTED]');
  });

  it('trial: `hookwise routes try` prints and stores the trial scrubbed (a run’s answer and a failed run’s error)', async () => {
    if (skip) return console.warn(`skipped: ${skip}`);
    for (const [route, id, tag, min] of [
      ['probe', 'exits-probe-1', 'answer', LINES * 2],
      ['fail', 'exits-fail-1', 'failure', 20],
    ] as const) {
      const printed = await cli('routes', 'try', route, '--prompt', 'RUN: {script}', '--ids', id, '--json');
      const trial = JSON.parse(printed) as { id: string; events: Array<{ new: { error?: string } }> };
      if (route === 'fail') expect(trial.events[0].new.error).toContain('stderr:');
      // The trial's own run printed (or failed with) the file again: scrubbed in what was printed and in trials/<id>.json.
      expectScrubbed(strings(trial), tag, min);
      const file = readdirSync(join(dir, 'trials')).find((name) => name.startsWith(trial.id));
      expect(file).toBeDefined();
      expectScrubbed(strings(JSON.parse(readFileSync(join(dir, 'trials', file!), 'utf8'))), tag, min);
    }
  });

  it('lifecycle webhook: a payload’s text in an event’s facts (its event type) reaches the notify target scrubbed', async () => {
    if (skip) return console.warn(`skipped: ${skip}`);
    const eventType = `lifecycle LEAK_API_KEY hex: ${ENCODINGS.hex(SECRETS.LEAK_API_KEY)}`;
    expect([200, 202]).toContain((await post('only', { event_type: eventType, text: 'nothing secret' }, 'exits-lifecycle-1')).status);
    const accepted = await until('the accepted webhook', () =>
      notify.requests.find((r) => String(r.body).includes('hookwise.accepted') && String(r.body).includes('exits-lifecycle-1')),
    );
    const data = (accepted.json as { data: { event?: string } }).data;
    expect(data.event).toBe('lifecycle LEAK_API_KEY hex: [REDACTED]');
  });

  it('tool output: what the terminal tool sends to the model is scrubbed', async () => {
    if (skip) return console.warn(`skipped: ${skip}`);
    expect((await post('tool', { script: `cat ${tools}/tool.txt` }, 'exits-tool-1')).status).toBe(202);
    const sent = await until('the tool output at the model', () =>
      model.requests
        .flatMap((r) => (r.json as { messages?: ChatMessage[] }).messages ?? [])
        .filter((m) => m.role === 'tool')
        .map((m) => String(m.content))
        .find((content) => content.includes('tool WEBHOOK_SECRET raw')),
    );
    expectScrubbed(sent, 'tool');
  });

  it('the whole log holds no form of any secret (but the request path’s lines about the lifecycle case)', () => {
    if (skip) return console.warn(`skipped: ${skip}`);
    // The request path logs the event type its sender wrote with the log redactor only (the registered secrets as
    // written, kept cheap for the webhook path): the lifecycle case's hex form shows there, as the sender sent it.
    const log = output
      .split('\n')
      .filter((line) => !line.includes('exits-lifecycle-1') && !line.includes('lifecycle LEAK_API_KEY hex'))
      .join('\n');
    for (const form of FORMS) expect(log).not.toContain(form);
  });
});

/** The primitives text leaves through, and each file that calls one, with the exit that scrubs what it sends. */
const SINKS: Record<string, Record<string, OutboundExit[]>> = {
  '.saveAnswer(': { 'packages/gateway/src/jobs/agent-step.ts': ['answer', 'deliver-only'] },
  '.deliver(': {
    'packages/gateway/src/jobs/worker.ts': ['answer', 'deliver-only'],
    'packages/gateway/src/jobs/fan-out.ts': ['answer', 'deliver-only'],
    'packages/gateway/src/actions/run-actions.ts': ['action-input'],
  },
  'DelivererAction).run(': { 'packages/gateway/src/actions/run-actions.ts': ['action-input'] },
  'jobs.fail(': { 'packages/gateway/src/jobs/retries.ts': ['failure'] },
  'outbox.add(': { 'packages/gateway/src/observe/lifecycle-webhooks-sender.ts': ['lifecycle-webhook'] },
  'saveTrial(': { 'packages/cli/src/trial-store.ts': ['trial'], 'packages/cli/src/commands/routes/try.ts': ['trial'] },
  'onStderrLine:': { 'plugins/agent-command/src/command-runner.ts': ['plugin-text'] },
  'runTerminalCommand(': { 'packages/agent-kit/src/terminal-tool.ts': ['plugin-text'] },
};

/** How many call sites pass each exit's name to the scrubber: a new one is a decision made here. */
const CALL_SITES: Record<OutboundExit, number> = {
  answer: 1,
  'deliver-only': 1,
  'action-input': 1,
  trial: 1,
  failure: 2,
  'lifecycle-webhook': 1,
  'plugin-text': 1,
  'mcp-event': 2,
};

function sources(): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  const walk = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push({ path: relative(ROOT, full), text: readFileSync(full, 'utf8') });
    }
  };
  for (const top of ['packages', 'plugins']) {
    for (const pkg of readdirSync(join(ROOT, top))) {
      // The testing package's store and deliverer contracts call the primitives on purpose.
      if (pkg === 'testing') continue;
      try {
        walk(join(ROOT, top, pkg, 'src'));
      } catch {
        // a package without src
      }
    }
  }
  return out;
}

describe('the list of exits', () => {
  it('has a case here for every exit the scrubber knows', () => {
    expect(Object.keys(EXIT_CASES).sort()).toEqual([...OUTBOUND_EXITS].sort());
  });

  it('every file that sends text through a sink primitive is listed with the exit that scrubs it', () => {
    const files = sources();
    for (const [primitive, listed] of Object.entries(SINKS)) {
      const calling = files.filter((f) => f.text.includes(primitive)).map((f) => f.path);
      expect({ primitive, files: calling.sort() }).toEqual({ primitive, files: Object.keys(listed).sort() });
      for (const exits of Object.values(listed)) for (const exit of exits) expect(OUTBOUND_EXITS).toContain(exit);
    }
  });

  it('counts the scrubber’s call sites by exit name', () => {
    const counts = Object.fromEntries(OUTBOUND_EXITS.map((exit) => [exit, 0])) as Record<OutboundExit, number>;
    // The exit is the first argument of the scrubber's methods and the last of scrubRunAnswer (jobs/answer-scrub.ts).
    const calls = [/\.(?:scrub|scrubValue|scrubCounted)\(\s*'([a-z-]+)'/g, /\bscrubRunAnswer\([^;]*?,\s*'([a-z-]+)',?\s*\)/g];
    for (const file of sources()) {
      if (file.path.endsWith('observe/outbound-scrub.ts')) continue;
      for (const m of calls.flatMap((call) => [...file.text.matchAll(call)])) {
        expect(OUTBOUND_EXITS).toContain(m[1]);
        counts[m[1] as OutboundExit] += 1;
      }
    }
    expect(counts).toEqual(CALL_SITES);
  });
});
