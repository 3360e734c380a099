// Runs a real gateway on 127.0.0.1:0 from a config object in a temp config dir, capturing its log lines.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createHmac } from 'node:crypto';
import { startGateway, type RunningGateway, type StartOptions } from '@hookwise/server';
import { testProcessEnv } from './process-env';

export interface TestGateway extends RunningGateway {
  configDir: string;
  /** Every log line so far (JSON lines parsed). */
  logs: Array<Record<string, unknown>>;
  /** Log messages joined, for `toContain` assertions. */
  logText(): string;
  /** Every log line with all its fields (JSON, one a line), for checking that a secret appears nowhere in the log. */
  fullLogText(): string;
  /** Resolves when a log message matching `pattern` appears (or rejects after `timeoutMs`). */
  waitForLog(pattern: RegExp | string, timeoutMs?: number): Promise<Record<string, unknown>>;
  post(route: string, body: string | Buffer, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }>;
  stop(): Promise<void>;
}

export interface TestGatewayOptions extends Omit<StartOptions, 'configDir' | 'logStream' | 'logFormat' | 'port' | 'host'> {
  /** config.yaml content as an object (written as JSON, which is valid YAML) or as YAML text. */
  config: Record<string, unknown> | string;
  /** Extra files for the config dir, e.g. { '.env': 'WEBHOOK_SECRET=x' }. */
  files?: Record<string, string>;
  configDir?: string;
}

export function signGeneric(secret: string, body: string | Buffer): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export function signGithub(secret: string, body: string | Buffer): string {
  return `sha256=${signGeneric(secret, body)}`;
}

/**
 * The hookwise distribution's part of the options (its first-party plugins, default sources and CLI installation)
 * when @hookwise/cli resolves from where the tests run (this repository): @hookwise/testing depends on no plugin, so
 * elsewhere a test passes its own in `plugins`.
 */
async function distributionFromCaller(): Promise<Pick<StartOptions, 'firstParty' | 'defaultSources' | 'agentCli'>> {
  let cli: string;
  try {
    cli = require.resolve('@hookwise/cli', { paths: [process.cwd()] });
  } catch {
    return {};
  }
  const { distributionOptions } = require(cli) as { distributionOptions?: () => Promise<Pick<StartOptions, 'firstParty' | 'defaultSources' | 'agentCli'>> };
  return (await distributionOptions?.()) ?? {};
}

export async function startTestGateway(options: TestGatewayOptions): Promise<TestGateway> {
  const configDir = options.configDir ?? mkdtempSync(join(tmpdir(), 'hookwise-test-'));
  const text = typeof options.config === 'string' ? options.config : JSON.stringify(options.config, null, 2);
  writeFileSync(join(configDir, 'config.yaml'), text);
  for (const [name, content] of Object.entries(options.files ?? {})) writeFileSync(join(configDir, name), content);
  const logs: Array<Record<string, unknown>> = [];
  const waiters: Array<{ pattern: RegExp | string; resolve: (line: Record<string, unknown>) => void }> = [];
  const matches = (line: Record<string, unknown>, pattern: RegExp | string) =>
    typeof pattern === 'string' ? String(line.message).includes(pattern) : pattern.test(String(line.message));
  const logStream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const raw of chunk.toString('utf8').split('\n')) {
        if (!raw.trim()) continue;
        let line: Record<string, unknown>;
        try {
          line = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          line = { message: raw };
        }
        logs.push(line);
        for (const waiter of [...waiters]) {
          if (matches(line, waiter.pattern)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(line);
          }
        }
      }
      done();
    },
  });
  // What the caller sets wins over the distribution's (its own firstParty replaces the distribution's plugins).
  const distribution = await distributionFromCaller();
  const running = await startGateway({
    ...options,
    firstParty: options.firstParty ?? distribution.firstParty,
    defaultSources: options.defaultSources ?? distribution.defaultSources,
    agentCli: options.agentCli ?? distribution.agentCli,
    configDir,
    port: 0,
    host: '127.0.0.1',
    logStream,
    logFormat: 'json',
    env: options.env ?? testProcessEnv(),
  });
  const harness: TestGateway = {
    ...running,
    configDir,
    logs,
    logText: () => logs.map((l) => String(l.message)).join('\n'),
    fullLogText: () => logs.map((l) => JSON.stringify(l)).join('\n'),
    waitForLog(pattern, timeoutMs = 10_000) {
      const found = logs.find((l) => matches(l, pattern));
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no log line matching ${String(pattern)} within ${timeoutMs} ms; log so far:\n${harness.logText()}`)),
          timeoutMs,
        );
        waiters.push({
          pattern,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
      });
    },
    async post(route, body, headers = {}) {
      const res = await fetch(`${running.url}/webhooks/${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : new Uint8Array(body),
      });
      const text = await res.text();
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(text) as Record<string, unknown>;
      } catch {
        parsed = { raw: text };
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async stop() {
      await running.close(2_000);
      if (!options.configDir) rmSync(configDir, { recursive: true, force: true });
    },
  };
  return harness;
}
