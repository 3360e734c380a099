// A `transform: { command }` run: the operator's program, fed an attacker-written payload on stdin, so
// it runs like an agent's processes: inside the route's agent sandbox (jobs/agent-sandbox.ts decides the mode),
// with no network whatever the route's agent may reach, the config dir and store hidden, a fresh work dir, an
// environment of PATH and LANG only, a time limit (the whole process group killed past it), a cap on output, and
// the route's agent.sandbox.memory_mb and processes (a fork bomb or a runaway allocation ends saying which).
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { openSandboxRun, type LimitExit, type SandboxRun } from '@hookwise/sandbox';
import { limitMessage, type AgentSandboxes } from '../jobs/agent-sandbox';
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
  const { limits: runLimits, where } = sandboxes.limitsFor(route, decision.sandboxed);
  const run: SandboxRun = await openSandboxRun({
    decision,
    label,
    network: [],
    readOnly: readablePaths(command, sandboxes),
    hidden: sandboxes.hiddenPaths,
    hiddenExceptAllowed: sandboxes.hiddenExceptAllowed,
    workParent: sandboxes.workDirParent,
    limits: { memoryMb: runLimits.memoryMb, processes: runLimits.processes },
  });
  try {
    const env = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', LANG: process.env.LANG ?? 'C.UTF-8' };
    const child = run.spawn(command[0], command.slice(1), env, ['pipe', 'pipe', 'pipe']);
    const reached = (exit: LimitExit) => {
      const which = run.limitReached(exit);
      // "it ran out of memory: ..." reads "the transform of route 'x' ran out of memory: ..." in the job's error.
      return which ? limitMessage(which, runLimits, where, 'the transform').replace(/^it /, '') : undefined;
    };
    return await collect(child, input, limits, reached);
  } finally {
    await run.close().catch(() => undefined);
  }
}

function collect(child: ChildProcess, input: string, limits: CommandLimits, reached: (exit: LimitExit) => string | undefined): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    // The end of stderr too: a fork bomb's "Cannot fork" may come after any amount of other output.
    let stderrEnd = '';
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
      stderrEnd = (stderrEnd + chunk.toString('utf8')).slice(-2000);
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
      // A limit first: a fork bomb that keeps trying runs into the time limit as well, but the limit is the news.
      const limit = failure || code !== 0 ? reached({ exitCode: code, exitSignal: signal, stderr: `${stderr}\n${stderrEnd}` }) : undefined;
      if (limit) return reject(new TransformFailed(failure ? `${limit}; it also ${failure}` : limit));
      if (failure) return reject(new TransformFailed(failure));
      if (code !== 0) {
        const detail = stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 300);
        return reject(new TransformFailed(`exited with ${signal ?? `code ${code}`}${detail ? `: ${detail}` : ''}`));
      }
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}
