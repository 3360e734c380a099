// Starts a throwaway redis-server on a free 127.0.0.1 port for tests; fails loudly when it is not installed.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export interface RunningRedis {
  port: number;
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export const REDIS_INSTALL_HINT = 'redis-server is not installed: run `apt-get install -y redis-server` (the Redis tests need the real server)';

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
    const timer = setTimeout(() => reject(new Error(`redis-server did not start within ${options.readyWithinMs ?? 10_000} ms: ${output.slice(-500)}`)), options.readyWithinMs ?? 10_000);
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
