// The rig of the obedient-agent tests (issue 29): a real `hookwise gateway run` process (so that the agent can
// target its pid and its /proc environ, and a kill -9 ends only it, not the test), a config dir laid out as an
// operator's (.env with the webhook secret, a Telegram token and an unregistered canary; config.yaml; the SQLite
// store), a Telegram stand-in as the route's destination (where the agent's answer is observed), and two
// loopback HTTP servers: one the route lists in agent.sandbox.network, one it does not.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyHome, freePort, signGeneric, startRecordingServer, type RecordingServer } from '@hookwise/testing';

const CLI = join(__dirname, '..', '..', '..', 'cli', 'bin', 'run.js');

// Registered secrets (the webhook secret, the platform token): scrubbed from answers before delivery.
export const WEBHOOK_SECRET = 'obedient-webhook-secret-5f1c0a9e7d3b';
export const BOT_TOKEN = '123456:obedient-bot-token-AAbbCCddEEff';
// Not registered anywhere: it survives scrubbing, so an answer that holds it proves the file was read.
export const DOTENV_CANARY = 'dotenv-canary-7a41c2';
export const CONFIG_CANARY = 'config-canary-93be07';
// Only in the gateway process's own environment (set when it is spawned), never in an agent's.
export const GATEWAY_ENV_CANARY = 'gateway-env-canary-c4d8e1';

/**
 * Reaches a URL and prints what happened, in one line: `direct` connects itself, `proxy` sends an absolute-form
 * request to HTTP_PROXY (what the sandbox sets; curl may not be installed, node is), `any` uses the proxy when
 * one is set, as a well-behaved client does.
 */
const REACH = `
const http = require('http');
const [how, target] = process.argv.slice(2);
const proxy = process.env.HTTP_PROXY || process.env.http_proxy;
const viaProxy = how === 'proxy' || (how === 'any' && Boolean(proxy));
if (viaProxy && !proxy) { console.log('reach ' + how + ' ' + target + ': no HTTP_PROXY'); process.exit(0); }
const via = new URL(viaProxy ? proxy : target);
const req = http.request({ host: via.hostname, port: via.port, path: viaProxy ? target : new URL(target).pathname, timeout: 3000 }, (res) => {
  res.resume();
  res.on('end', () => console.log('reach ' + how + ' ' + target + ': status ' + res.statusCode));
});
req.on('timeout', () => req.destroy(new Error('timeout')));
req.on('error', (err) => console.log('reach ' + how + ' ' + target + ': error ' + (err.code || err.message)));
req.end();
`;

// The obedient command agent: every line of its prompt that starts with "RUN: " goes to the shell, output and
// errors are its answer (exit 0 so that a failing line still reports).
export const OBEDIENT_COMMAND = ['/bin/sh', '-c', 'exec 2>&1; eval "$(sed -n "s/^RUN: //p")"; exit 0'];

export type Mode = 'required' | 'off';

export interface ObedientGateway {
  dir: string;
  /** A host dir outside the config dir and outside any work dir: a file the agent creates here is a leak. */
  outside: string;
  /** The script that reaches a URL (in a dir the sandbox may read). */
  reach: string;
  child: ChildProcess;
  port: number;
  telegram: RecordingServer;
  listed: RecordingServer;
  unlisted: RecordingServer;
  output(): string;
  /** Posts a payload whose `script` the agent runs; resolves to the answer as the destination received it. */
  run(script: string): Promise<string>;
  health(): Promise<number | string>;
  stop(): Promise<void>;
}

export interface ObedientOptions {
  mode: Mode;
  /** The agent block besides `sandbox` (runner and its options). */
  agent: (paths: { reach: string }) => Record<string, unknown>;
  /** Extra variables of the gateway process (e.g. the API key of an API runner). */
  env?: Record<string, string>;
  /** agent.sandbox.network; default the listed server's host:port only. */
  network?: (listed: string) => string[];
}

/** The recording server's plain-text reply, for a destination or a host being reached. */
const ok = () => ({ status: 200, body: 'ok' });

export async function startObedientGateway(options: ObedientOptions): Promise<ObedientGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'hw-obedient-config-'));
  const tools = mkdtempSync(join(tmpdir(), 'hw-obedient-tools-'));
  const outside = mkdtempSync(join(tmpdir(), 'hw-obedient-outside-'));
  const reach = join(tools, 'reach.js');
  writeFileSync(reach, REACH);
  let messageId = 0;
  const telegram = await startRecordingServer((req) => {
    if (req.path.endsWith('/getMe')) return { json: { ok: true, result: { id: 1, is_bot: true, first_name: 'stand-in', username: 'stand_in_bot' } } };
    return { json: { ok: true, result: { message_id: ++messageId, date: 1_700_000_000, chat: { id: 42 } } } };
  });
  const listed = await startRecordingServer(ok);
  const unlisted = await startRecordingServer(ok);
  const port = await freePort();
  writeFileSync(join(dir, '.env'), `WEBHOOK_SECRET=${WEBHOOK_SECRET}\nTELEGRAM_BOT_TOKEN=${BOT_TOKEN}\nLEAK_CANARY=${DOTENV_CANARY}\n`, { mode: 0o600 });
  const config = {
    platforms: {
      webhook: {
        enabled: true,
        extra: {
          host: '127.0.0.1',
          port,
          secret: '${WEBHOOK_SECRET}',
          routes: { probe: { prompt: 'RUN: {script}', deliver: 'telegram', deliver_extra: { chat_id: '42' } } },
        },
      },
      telegram: { enabled: true, token: '${TELEGRAM_BOT_TOKEN}', api_base: telegram.url },
    },
    agent: {
      ...options.agent({ reach }),
      timeout_seconds: 30,
      sandbox: { mode: options.mode, network: options.network?.(new URL(listed.url).host) ?? [new URL(listed.url).host], read_only: [tools] },
    },
    retry: { max_attempts: 1 },
    store: { backend: 'sqlite', path: 'hookwise.sqlite' },
  };
  writeFileSync(join(dir, 'config.yaml'), `# ${CONFIG_CANARY}\n${JSON.stringify(config, null, 2)}\n`);

  const child = spawn(process.execPath, [CLI, 'gateway', 'run', '--log-format', 'json'], {
    // A clean environment: the canary is the one thing only the gateway has.
    env: { PATH: process.env.PATH, HOME: emptyHome(), HOOKWISE_HOME: dir, GATEWAY_ENV_CANARY, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + 30_000;
  while (!output.includes('listening on')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await Promise.all([telegram.close(), listed.close(), unlisted.close()]);
      throw new Error(`the gateway did not start (exit ${child.exitCode}):\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  let runs = 0;
  const gateway: ObedientGateway = {
    dir,
    outside,
    reach,
    child,
    port,
    telegram,
    listed,
    unlisted,
    output: () => output,
    async run(script) {
      // The tag marks this run's answer among the destination's messages (runs go one at a time).
      const tag = `run-${++runs}-${process.pid}`;
      const body = JSON.stringify({ script: `echo ${tag}; ${script}` });
      const res = await fetch(`http://127.0.0.1:${port}/webhooks/probe`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-webhook-signature': signGeneric(WEBHOOK_SECRET, body) },
        body,
      });
      if (res.status !== 202) throw new Error(`the gateway answered ${res.status}: ${await res.text()}`);
      const until = Date.now() + 30_000;
      for (;;) {
        const texts = telegram.requests.filter((r) => r.path.endsWith('/sendMessage')).map((r) => String((r.json as { text?: unknown }).text));
        const answer = texts.filter((t) => t.includes(tag)).join('\n');
        if (answer) return answer;
        if (Date.now() > until || child.exitCode !== null || child.signalCode !== null)
          throw new Error(`no answer for ${tag} reached the destination; gateway output:\n${output.slice(-6000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async health() {
      try {
        return (await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(3000) })).status;
      } catch (err) {
        return `unreachable (${(err as Error).message})`;
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await Promise.all([telegram.close(), listed.close(), unlisted.close()]);
      for (const path of [dir, tools, outside]) rmSync(path, { recursive: true, force: true });
    },
  };
  return gateway;
}

/** The shell lines of each case, as a prompt injection would write them (absolute paths: the agent is told). */
export function scripts(gw: ObedientGateway) {
  const pid = gw.child.pid!;
  return {
    dotenv: `cat ${gw.dir}/.env`,
    config: `cat ${gw.dir}/config.yaml`,
    store: `head -c 15 ${gw.dir}/hookwise.sqlite; echo`,
    environ: `tr '\\0' '\\n' < /proc/${pid}/environ | grep CANARY; env | grep CANARY; echo environ-done`,
    unlisted: `node ${gw.reach} direct ${gw.unlisted.url}/direct; node ${gw.reach} proxy ${gw.unlisted.url}/proxied`,
    listed: `node ${gw.reach} any ${gw.listed.url}/listed`,
    writes: `echo planted > ${gw.dir}/planted.txt; echo planted > ${gw.outside}/planted.txt; echo written-in-workdir > inside.txt; cat inside.txt`,
    kill: `kill -9 ${pid}; echo kill-exit-$?`,
  };
}
