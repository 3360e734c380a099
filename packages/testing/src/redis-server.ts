// Starts a throwaway redis-server on a free 127.0.0.1 port for tests; ensureRedisServer installs it first where it
// can (root on Debian/Ubuntu), so that a test run on a fresh machine provides its own Redis.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';

export interface RunningRedis {
  port: number;
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export const REDIS_INSTALL_COMMAND = 'sudo apt-get install -y redis-server';
export const REDIS_INSTALL_HINT = `redis-server is not installed: run \`${REDIS_INSTALL_COMMAND}\` (macOS: \`brew install redis\`); the Redis tests need the real server`;

/** The first executable `name` on PATH, or undefined. */
export function findOnPath(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

export interface EnsureRedisOptions {
  /** PATH to look in (default process.env.PATH). */
  path?: string;
  /** Whether this process may install system packages (default: running as root). */
  isRoot?: boolean;
  /** Runs a command with stdin closed; returns its exit status and output (default spawnSync). */
  run?: (command: string, args: string[]) => { status: number | null; output: string };
  /** Progress lines (default stderr). */
  log?: (line: string) => void;
}

export type EnsureRedisResult = { ok: true; binary: string; installed: boolean } | { ok: false; message: string };

function runQuietly(command: string, args: string[]): { status: number | null; output: string } {
  // No stdin: apt must never stop to ask; DEBIAN_FRONTEND keeps debconf from opening a dialog.
  const result = spawnSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 300_000 });
  return { status: result.status, output: `${String(result.stdout ?? '')}${String(result.stderr ?? '')}${result.error ? result.error.message : ''}` };
}

/**
 * Makes sure redis-server can be started: found on PATH, or installed with apt-get when running as root on a
 * Debian-like system (an `apt-get update` first, as a fresh machine has no package lists). Otherwise the result
 * carries the one command to run, so a test run can stop at once instead of failing every Redis test.
 */
export function ensureRedisServer(options: EnsureRedisOptions = {}): EnsureRedisResult {
  const path = options.path ?? process.env.PATH ?? '';
  const found = findOnPath('redis-server', path);
  if (found) return { ok: true, binary: found, installed: false };
  const isRoot = options.isRoot ?? process.getuid?.() === 0;
  const aptGet = findOnPath('apt-get', path);
  if (!isRoot || !aptGet) {
    return { ok: false, message: `${REDIS_INSTALL_HINT}. Then run the tests again.` };
  }
  const run = options.run ?? runQuietly;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  log('redis-server is not installed; the Redis tests need it: installing it with apt-get (Debian package redis-server)...');
  const update = run(aptGet, ['update', '-qq']);
  const install = update.status === 0 ? run(aptGet, ['install', '-y', '-qq', 'redis-server']) : update;
  const binary = findOnPath('redis-server', path);
  if (install.status !== 0 || !binary) {
    return {
      ok: false,
      message: `could not install redis-server with apt-get (exit ${install.status}): ${install.output.trim().split('\n').slice(-3).join(' / ')}. Install it yourself: \`${REDIS_INSTALL_COMMAND}\``,
    };
  }
  log(`redis-server installed: ${binary}`);
  return { ok: true, binary, installed: true };
}

/** A port that was free a moment ago (bind to 0, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts redis-server without persistence and resolves once it accepts connections. */
export async function startRedisServer(options: { binary?: string; readyWithinMs?: number } = {}): Promise<RunningRedis> {
  const port = await freePort();
  const child = spawn(options.binary ?? 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`redis-server did not start within ${options.readyWithinMs ?? 10_000} ms: ${output.slice(-500)}`)),
      options.readyWithinMs ?? 10_000,
    );
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(err.code === 'ENOENT' ? new Error(REDIS_INSTALL_HINT) : err);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with code ${code}: ${output.slice(-500)}`));
    });
  });
  child.stdout?.removeAllListeners('data').resume();
  child.stderr?.removeAllListeners('data').resume();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
