// The `terminal` function tool: one shell command per call, run with a timeout, an output cap and an optional allowlist.
import { errorMessage } from '@hookwise/core';
import { runProcess } from '@hookwise/kit';
import type { FunctionTool } from './chat-wire';

export const TERMINAL_TOOL_NAME = 'terminal';

export const terminalToolDefinition: FunctionTool = {
  type: 'function',
  function: {
    name: TERMINAL_TOOL_NAME,
    description: 'Runs one shell command (/bin/sh -c) on the gateway host and returns its exit code, stdout and stderr.',
    parameters: {
      type: 'object',
      properties: { command: { type: 'string', description: 'The shell command to run.' } },
      required: ['command'],
      additionalProperties: false,
    },
  },
};

// With an allowlist, prefixes could be sidestepped by chaining (`allowed; rm -rf ~`) or substitution.
const SHELL_OPERATORS = /[;&|`$()<>\n\r\\]/;

/** Why `command` is refused under `allow`, or undefined when it may run. */
export function refusal(command: string, allow: readonly string[] | undefined): string | undefined {
  if (!allow) return undefined;
  const trimmed = command.trim();
  if (SHELL_OPERATORS.test(trimmed)) {
    return 'shell operators, substitutions, redirections and backslashes ( ; & | ` $ ( ) < > \\ newline ) are not allowed by terminal.allow; run one plain command';
  }
  const ok = allow.some((prefix) => {
    const p = prefix.trim();
    return trimmed === p || trimmed.startsWith(`${p} `);
  });
  return ok ? undefined : `the command does not start with an allowed prefix (${allow.map((p) => JSON.stringify(p)).join(', ')})`;
}

export interface TerminalRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  maxOutputBytes: number;
  allow?: readonly string[];
  signal: AbortSignal;
}

/** Runs the command and renders the outcome as the `tool` message content the model reads. */
export async function runTerminalCommand(command: string, options: TerminalRunOptions): Promise<string> {
  const refused = refusal(command, options.allow);
  if (refused) return `refused: ${refused}`;
  try {
    const result = await runProcess({
      command: '/bin/sh',
      args: ['-c', command],
      cwd: options.cwd,
      env: options.env,
      timeoutMs: options.timeoutMs,
      killGraceMs: 1000,
      maxOutputBytes: options.maxOutputBytes,
      maxStderrBytes: options.maxOutputBytes,
      signal: options.signal,
    });
    const lines: string[] = [];
    if (result.timedOut) lines.push(`timed out after ${options.timeoutMs / 1000}s; the command and its children were killed`);
    else if (result.exitSignal) lines.push(`killed by ${result.exitSignal}`);
    else lines.push(`exit code: ${result.exitCode}`);
    lines.push(`stdout:${result.stdoutTruncated ? ` (cut at ${options.maxOutputBytes} bytes)` : ''}`, result.stdout.trimEnd());
    if (result.stderr.trim()) lines.push(`stderr:${result.stderrTruncated ? ' (last part only)' : ''}`, result.stderr.trimEnd());
    return lines.join('\n');
  } catch (err) {
    return `error: could not start /bin/sh in ${options.cwd}: ${errorMessage(err)}`;
  }
}
