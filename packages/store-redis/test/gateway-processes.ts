// Real `hookwise gateway run` processes for the Redis end-to-end tests: start, stop, post, run the CLI.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testProcessEnv } from '@hookwise/testing';

const CLI_BIN = join(__dirname, '..', '..', 'cli', 'bin', 'run.js');

/** Fails the test file early when the CLI it starts is not built. */
export function requireBuiltCli(): void {
  if (!existsSync(join(__dirname, '..', '..', 'cli', 'dist', 'commands', 'gateway', 'run.js'))) {
    throw new Error('packages/cli is not built: run `npx tsc -b` before the gateway-process tests');
  }
}

export interface GatewayProcess {
  /** The name given at start, which its agent runs see as GATEWAY_NAME. */
  name: string;
  child: ChildProcess;
  url: string;
  output(): string;
}

export function gatewayEnv(home: string): NodeJS.ProcessEnv {
  return testProcessEnv(home, { OCLIF_COLUMNS: '1000' });
}

/**
 * Where the stand-in agent and the files it writes live: beside the config dir, never in it. The agent sandbox hides
 * the config dir from agent runs (a script or a runs file there is not found), and runs start in a work dir of their own.
 */
export const agentDirOf = (home: string): string => `${home}.agent`;

/** Writes the stand-in agent's source as <agent dir>/agent.js (see agentDirOf). */
export function writeStandInAgent(home: string, source: string): void {
  mkdirSync(agentDirOf(home), { recursive: true });
  writeFileSync(join(agentDirOf(home), 'agent.js'), source);
}

/**
 * The config.yaml of gateways that share one config dir and one redis-server: the webhook platform on a free port of
 * 127.0.0.1 (`webhook`: the YAML lines under its `extra:` beside host and port, the routes among them, indented six
 * spaces), the stand-in agent <agent dir>/agent.js run by the command runner, two at a time, with RUNS_FILE (which
 * must lie in the agent dir, the one place besides its work dir the sandboxed agent may write) and its gateway's
 * GATEWAY_NAME in its environment, then `more` (top-level YAML) and the Redis store at `redisUrl`.
 */
export function sharedRedisConfig(options: { home: string; runsFile: string; redisUrl: string; webhook: string; more?: string }): string {
  const agentDir = agentDirOf(options.home);
  return `platforms:
  webhook:
    enabled: true
    extra:
      host: 127.0.0.1
      port: 0
${options.webhook}
agent:
  runner: command
  command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(agentDir, 'agent.js'))}]
  env: [${JSON.stringify(`RUNS_FILE=${options.runsFile}`)}, GATEWAY_NAME]
  sandbox: { writable: [${JSON.stringify(agentDir)}] }
  concurrency: 2
${options.more ?? ''}store: { backend: redis, url: "${options.redisUrl}" }
`;
}

/** Polls `condition` until it holds; fails with `what` after `timeoutMs`. */
export async function until(condition: () => boolean, what: () => string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts `hookwise gateway run` on the config in `home` (its port 0 gives each process its own port). Its agent runs
 * get `name` as GATEWAY_NAME: inside the sandbox's own pid namespace, an agent's parent pid does not say which
 * gateway ran it.
 */
export async function startGatewayProcess(home: string, name: string): Promise<GatewayProcess> {
  const env = { ...gatewayEnv(home), GATEWAY_NAME: name };
  const child = spawn(process.execPath, [CLI_BIN, 'gateway', 'run'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const listening = /listening on http:\/\/127\.0\.0\.1:(\d+)/;
  await until(
    () => listening.test(out) || child.exitCode !== null,
    () => `gateway start:\n${out}`,
    30_000,
  );
  const match = listening.exec(out);
  if (!match) throw new Error(`gateway exited with ${child.exitCode}:\n${out}`);
  return { name, child, url: `http://127.0.0.1:${match[1]}`, output: () => out };
}

export function stopGatewayProcess(gateway: GatewayProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!gateway || gateway.child.exitCode !== null || gateway.child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    gateway.child.once('exit', () => resolve());
    gateway.child.kill(signal);
  });
}

/** Runs the hookwise CLI on `home`. */
export function cli(home: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI_BIN, ...args], { env: gatewayEnv(home), timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
    child.stdin?.end();
  });
}

/** POSTs JSON to a route whose secret is INSECURE_NO_AUTH, the delivery id in X-Request-ID. */
export async function postEvent(
  gateway: GatewayProcess,
  route: string,
  deliveryId: string,
  payload: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown>; retryAfter: string | null }> {
  const response = await fetch(`${gateway.url}/webhooks/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': deliveryId },
    body: JSON.stringify(payload),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, retryAfter: response.headers.get('retry-after') };
}
