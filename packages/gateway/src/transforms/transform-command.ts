// A `transform: { command }` run: the operator's program, fed an attacker-written payload on stdin, so
// it runs like an agent's processes: inside the route's agent sandbox (jobs/agent-sandbox.ts decides the mode),
// with no network whatever the route's agent may reach, the config dir and store hidden, a fresh work dir, an
// environment of PATH and LANG only, a time limit (the whole process group killed past it) and a cap on output.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { openSandboxRun, type SandboxRun } from '@hookwise/sandbox';
import type { AgentSandboxes } from '../jobs/agent-sandbox';
import type { Route } from '../routes/routes';

export interface CommandLimits {
  timeoutMs: number;
  maxOutputBytes: number;
}

/** A transform that did not give an output: what went wrong, for the job and the log (never the payload). */
export class TransformFailed extends Error {}

/** Absolute paths among the program and its arguments that exist outside the hidden dirs: shown read-only. */
function readablePaths(command: readonly string[], sandboxes: AgentSandboxes): string[] {
  return command.filter((arg) => isAbsolute(arg) && existsSync(arg) && !sandboxes.overlapsHidden(arg));
}

/** Runs the command with `input` on stdin; resolves to its stdout (as text) or rejects with TransformFailed. */
export async function runTransformCommand(
  route: Route,
  command: readonly string[],
  input: string,
  limits: CommandLimits,
  sandboxes: AgentSandboxes,
  label: string,
): Promise<string> {
  const decision = await sandboxes.decisionFor(route);
  const run: SandboxRun = await openSandboxRun({
    decision,
    label,
    network: [],
    readOnly: readablePaths(command, sandboxes),
    hidden: sandboxes.hiddenPaths,
    hiddenExceptAllowed: sandboxes.hiddenExceptAllowed,
    workParent: sandboxes.workDirParent,
  });
  try {
    const env = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', LANG: process.env.LANG ?? 'C.UTF-8' };
    const child = run.spawn(command[0], command.slice(1), env, ['pipe', 'pipe', 'pipe']);
    return await collect(child, input, limits);
  } finally {
    await run.close().catch(() => undefined);
  }
}

function collect(child: ChildProcess, input: string, limits: CommandLimits): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let failure: string | undefined;
    const kill = (why: string) => {
      failure ??= why;
      try {
        // Detached: its own process group, so whatever it started goes too.
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const timer = setTimeout(
      () => kill(`did not finish within ${limits.timeoutMs / 1000}s (raise transform.timeout_seconds or make it faster)`),
      limits.timeoutMs,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxOutputBytes) return kill(`wrote more than ${limits.maxOutputBytes} bytes (transform.max_output_bytes)`);
      chunks.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 500) stderr += chunk.toString('utf8');
    });
    // A program that exits without reading its stdin must not fail the run with EPIPE.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new TransformFailed(`could not start ${JSON.stringify(child.spawnfile)}: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (failure) return reject(new TransformFailed(failure));
      if (code !== 0) {
        const detail = stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 300);
        return reject(new TransformFailed(`exited with ${signal ?? `code ${code}`}${detail ? `: ${detail}` : ''}`));
      }
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}
