// Runs the code host's command-line client once, without a shell, with the body on stdin; collects
// stdout/stderr and enforces a timeout and the delivery's AbortSignal.
import { spawn } from 'node:child_process';

export interface CliResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface CliRunOptions {
  env: NodeJS.ProcessEnv;
  stdin: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/** Rejects only when the process cannot be started (err.code ENOENT, EACCES, ...). */
export function runCli(command: string, args: string[], opts: CliRunOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: opts.env, stdio: ['pipe', 'pipe', 'pipe'], shell: false, windowsHide: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const kill = (): void => {
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 2000).unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, opts.timeoutMs);
    opts.signal.addEventListener('abort', kill, { once: true });
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    // A client that exits before reading stdin makes the write fail with EPIPE; its exit code tells the story.
    child.stdin.on('error', () => undefined);
    child.on('error', (e) => {
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', kill);
      reject(e);
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', kill);
      resolve({ exitCode, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), timedOut });
    });
    child.stdin.end(opts.stdin);
  });
}
