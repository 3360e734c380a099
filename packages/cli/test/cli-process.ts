// Test helpers: run the built `hookwise` binary as a real child process, and sign requests like a sender would.
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { testProcessEnv } from '@hookwise/testing';

export const CLI_BIN = join(__dirname, '..', 'bin', 'run.js');

if (!existsSync(join(__dirname, '..', 'dist', 'commands', 'webhook', 'subscribe.js'))) {
  throw new Error('packages/cli is not built: run `npx tsc -b packages/cli` before the CLI process tests');
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `hookwise <args>` with HOOKWISE_HOME the test's config dir and an empty HOME (nothing of the developer's
 * Hookwise setup is inherited: testProcessEnv); stdin is closed so nothing can wait for input.
 */
export function runCli(args: string[], home: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI_BIN, ...args],
      // OCLIF_COLUMNS: oclif wraps error text at the terminal width; one line per message keeps assertions simple.
      {
        env: testProcessEnv(home, { OCLIF_COLUMNS: '1000', ...env }),
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
    child.stdin?.end();
  });
}

export function tempHome(prefix = 'hookwise-cli-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** config.yaml enabling the adapter on loopback; `extra` lines are appended under platforms.webhook.extra. */
export function writeConfig(home: string, port: number, extra = ''): void {
  writeFileSync(join(home, 'config.yaml'), `platforms:\n  webhook:\n    enabled: true\n    extra:\n      host: 127.0.0.1\n      port: ${port}\n${extra}`);
}

/** A log stream for startGateway that keeps the lines for assertions. */
export function logCapture(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

/** A loopback port that was free a moment ago (nothing listens on it now). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** POSTs a JSON body signed with the generic X-Webhook-Signature header. */
export async function postSigned(
  url: string,
  secret: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': createHmac('sha256', secret).update(body).digest('hex'), ...headers },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
