// Helpers for the deliveries process tests: a temp config dir with a stand-in agent, the gateway as a child process, the CLI.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testProcessEnv, webhookPlatformLines } from '@hookwise/testing';

const CLI_BIN = join(__dirname, '..', 'bin', 'run.js');

/** The stand-in agent: answers with its prompt after a pause; fails on "mode":"fail" until <agent dir>/healed exists. */
const AGENT = `
const fs = require('node:fs');
let input = '';
process.stdin.on('data', (c) => (input += c)).on('end', () => {
  if (input.includes('"mode": "fail"') && !fs.existsSync(process.env.HOME_DIR + '/healed')) { console.error('agent refused'); process.exit(1); }
  const pause = input.includes('"mode": "slow"') ? 4000 : 1500;
  setTimeout(() => { process.stdout.write('answer for ' + input.trim()); }, pause);
});
`;

/** The `platforms:` lines of a config.yaml with one route, `ci`, that takes unsigned requests; `routeKeys` are its other keys (prompt, deliver, budget...). */
export const ciWebhookPlatform = (routeKeys: string[]): string[] => webhookPlatformLines({ ci: ['secret: INSECURE_NO_AUTH', ...routeKeys] });

/** Where a home's stand-in agent lives: beside the config dir, never in it (the agent sandbox hides the config dir). */
export const agentDirOf = (home: string): string => `${home}.agent`;

export function makeHome(extra = ''): string {
  const home = mkdtempSync(join(tmpdir(), 'hookwise-deliveries-'));
  const agentDir = agentDirOf(home);
  mkdirSync(agentDir);
  writeFileSync(join(agentDir, 'agent.js'), AGENT);
  writeFileSync(
    join(home, 'config.yaml'),
    [
      ...ciWebhookPlatform(['prompt: "event {__raw__}"']),
      'agent:',
      '  runner: command',
      `  command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(agentDir, 'agent.js'))}]`,
      `  env: { HOME_DIR: ${JSON.stringify(agentDir)} }`,
      `  sandbox: { read_only: [${JSON.stringify(agentDir)}] }`,
      '  concurrency: 5',
      'retry:',
      '  max_attempts: 1',
      extra,
    ].join('\n'),
  );
  return home;
}

export function env(home: string): NodeJS.ProcessEnv {
  return testProcessEnv(home, { OCLIF_COLUMNS: '1000' });
}

export interface Gateway {
  child: ChildProcess;
  url: string;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

export async function startGateway(home: string): Promise<Gateway> {
  const child = spawn(process.execPath, [CLI_BIN, 'gateway', 'run'], { env: env(home), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const waitFor = async (pattern: RegExp, timeoutMs = 15_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(out)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`gateway output never matched ${pattern}:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/);
  const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)![1];
  return { child, url: `http://127.0.0.1:${port}`, output: () => out, waitFor };
}

export async function stop(gateway: Gateway, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (gateway.child.exitCode !== null || gateway.child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    gateway.child.once('exit', () => resolve());
    gateway.child.kill(signal);
  });
}

export function cli(home: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI_BIN, ...args], { env: env(home), timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
    child.stdin?.end();
  });
}

export async function post(url: string, deliveryId: string, payload: Record<string, unknown>): Promise<Response> {
  return fetch(`${url}/webhooks/ci`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': deliveryId },
    body: JSON.stringify(payload),
  });
}

export const deliveredCount = (output: string, id: string): number => output.split('\n').filter((l) => l.includes(`delivered ${id} on route`)).length;
