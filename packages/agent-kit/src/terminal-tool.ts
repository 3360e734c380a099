// The `terminal` tool of the API runners: one shell command per call, run with a timeout, an output cap, an
// optional allowlist and a clean environment; its options block, its rule in the system prompt, its handler.
import { isAbsolute, resolve } from 'node:path';
import { errorMessage, type OptionsSchema, type PluginContext } from '@hookwise/core';
import type { AgentToolDefinition, AgentToolHandler } from './agent-tools';
import { childEnvironment, runProcess } from '@hookwise/kit';

export const TERMINAL_TOOL_NAME = 'terminal';

export const terminalToolDefinition: AgentToolDefinition = {
  name: TERMINAL_TOOL_NAME,
  description: 'Runs one shell command (/bin/sh -c) on the gateway host and returns its exit code, stdout and stderr.',
  inputSchema: {
    type: 'object',
    properties: { command: { type: 'string', description: 'The shell command to run.' } },
    required: ['command'],
    additionalProperties: false,
  },
};

/** The `terminal:` block of a runner's options. */
export interface TerminalOptions {
  /** Working directory of every command; relative paths are taken from the config dir. Default: the config dir. */
  cwd?: string;
  timeout_seconds: number;
  /** Stdout (and the stderr tail) shown to the model is cut at this many bytes each. */
  max_output_bytes: number;
  /** When set, a command must start with one of these prefixes and may not use shell operators. */
  allow?: string[];
  /** Variables passed from the gateway environment besides PATH, HOME and the locale (the allowlist). */
  env: string[];
}

export const terminalOptionsSchema: OptionsSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    cwd: { type: 'string', minLength: 1 },
    timeout_seconds: { type: 'number', exclusiveMinimum: 0, default: 60 },
    max_output_bytes: { type: 'integer', minimum: 1, default: 16384 },
    allow: { type: 'array', items: { type: 'string', minLength: 1 } },
    env: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }, default: [] },
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

/** Runs the command and renders the outcome as the text the model reads. */
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

/** Where and how the model's commands run, worked out once per runner. */
export interface TerminalSettings {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  maxOutputBytes: number;
  allow?: string[];
}

/**
 * The settings of `options`, with the environment built clean: the basics, what terminal.env lists, and
 * HOOKWISE_HOME. `hidden` (the runner's API key variable, WEBHOOK_SECRET) stays out unless terminal.env names it.
 */
export function terminalSettings(options: TerminalOptions, ctx: Pick<PluginContext, 'configDir' | 'env'>, hidden: readonly string[]): TerminalSettings {
  const cwd = options.cwd ? (isAbsolute(options.cwd) ? options.cwd : resolve(ctx.configDir, options.cwd)) : ctx.configDir;
  const allowed = options.env ?? [];
  const env = childEnvironment(ctx.env, { allow: allowed, set: { HOOKWISE_HOME: ctx.configDir } });
  for (const name of hidden) if (!allowed.includes(name)) delete env[name];
  return { cwd, env, timeoutMs: options.timeout_seconds * 1000, maxOutputBytes: options.max_output_bytes, allow: options.allow };
}

/** The system prompt's paragraph about the terminal, so that the model knows its limits before it hits them. */
export function terminalRule(settings: TerminalSettings): string {
  let rule = `You can run shell commands with the \`${TERMINAL_TOOL_NAME}\` tool: one command per call, run by /bin/sh in ${settings.cwd}, stopped after ${settings.timeoutMs / 1000}s, output cut at ${settings.maxOutputBytes} bytes. Use it only when the task needs it.`;
  if (settings.allow) rule += ` Only commands starting with one of these prefixes are allowed, without shell operators: ${settings.allow.join(', ')}.`;
  return rule;
}

/** The tool handler for a runner's toolbox. */
export function terminalTool(settings: TerminalSettings): AgentToolHandler {
  return {
    definition: terminalToolDefinition,
    async run(input, signal) {
      const command = input.command;
      if (typeof command !== 'string' || command.trim() === '') {
        return { content: 'error: missing "command"; call terminal with {"command": "<shell command>"}', isError: true };
      }
      const content = await runTerminalCommand(command, { ...settings, signal });
      return { content, isError: content.startsWith('refused: ') || content.startsWith('error: ') };
    },
  };
}
