// Starts a long-running `hookwise` command (e.g. `gateway run`) as a real process and lets a test wait for its output.
import { spawn, type ChildProcess } from 'node:child_process';
import { testProcessEnv } from '@hookwise/testing';
import { CLI_BIN } from './cli-process';

export interface LongRunning {
  child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function startCli(args: string[], home: string, env: NodeJS.ProcessEnv = {}): LongRunning {
  const child = spawn(process.execPath, [CLI_BIN, ...args], {
    env: testProcessEnv(home, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners: Array<() => void> = [];
  const onData = (c: Buffer) => {
    out += c.toString();
    for (const l of [...listeners]) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = out.match(pattern);
          if (!match) return;
          listeners.splice(listeners.indexOf(check), 1);
          clearTimeout(timer);
          resolve(match);
        };
        const timer = setTimeout(() => reject(new Error(`no output matching ${pattern} in ${timeoutMs} ms:\n${out}`)), timeoutMs);
        listeners.push(check);
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
