// The `terminal` tool of the API runners: one shell command per call, run inside the run's sandbox (in its work
// dir) with a timeout, an output cap, an optional allowlist of whole commands and a clean environment; its
// options block, its rule in the system prompt, its handler.
import { tmpdir } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import {
  HookwiseError,
  ThoroughScrubber,
  credentialValues,
  errorMessage,
  type AgentSandbox,
  type AgentSandboxNeeds,
  type OptionsSchema,
  type PluginContext,
} from '@hookwise/core';
import type { AgentToolDefinition, AgentToolHandler } from './agent-tools';
import { childEnvironment, runProcess } from '@hookwise/kit';
import { allowProblems, allowRefusal } from './terminal-allow';

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
  /**
   * Working directory of every command (the run's work dir, shared by the runs); relative paths are taken from
   * the config dir, never inside it. Default: the run's own fresh work dir.
   */
  cwd?: string;
  timeout_seconds: number;
  /** Stdout (and the stderr tail) shown to the model is cut at this many bytes each. */
  max_output_bytes: number;
  /**
   * When set, a command must match one of these whole: a program and its argument patterns (`"git log *"`:
   * `*` is one plain argument, a final `**` any number of them); no shell operators, no paths out of the work dir.
   */
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

/** Why `command` is refused under `allow` (run in `workDir`), or undefined when it may run. */
export function refusal(command: string, allow: readonly string[] | undefined, workDir = process.cwd()): string | undefined {
  return allow ? allowRefusal(command, allow, workDir) : undefined;
}

export interface TerminalRunOptions {
  /** The configured cwd; default the sandbox's work dir. */
  cwd?: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  maxOutputBytes: number;
  allow?: readonly string[];
  signal: AbortSignal;
  /** The run's sandbox (AgentTask.sandbox): every command starts through it. */
  sandbox?: AgentSandbox;
}

/** Runs the command and renders the outcome as the text the model reads. */
export async function runTerminalCommand(command: string, options: TerminalRunOptions): Promise<string> {
  // Outside a gateway's worker (no sandbox): the configured cwd or the temp dir, never the gateway's own cwd.
  const plan = options.sandbox
    ? options.sandbox.plan('/bin/sh', ['-c', command], options.env)
    : { command: '/bin/sh', args: ['-c', command], env: options.env, cwd: options.cwd ?? tmpdir() };
  const refused = refusal(command, options.allow, plan.cwd);
  if (refused) return `refused: ${refused}`;
  try {
    const result = await runProcess({
      command: plan.command,
      args: plan.args,
      cwd: plan.cwd,
      env: plan.env,
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
    return `error: could not start /bin/sh in ${plan.cwd}: ${errorMessage(err)}`;
  }
}

/** Where and how the model's commands run, worked out once per runner. */
export interface TerminalSettings {
  /** agent terminal.cwd resolved; undefined: the run's work dir. */
  cwd?: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  maxOutputBytes: number;
  allow?: string[];
  /**
   * Removes the gateway's secrets from a command's output before the model reads it: the registered ones (the
   * context's `scrub`) and the values of credential-named variables of the gateway's environment (core's rule).
   */
  scrub?: (text: string) => string;
}

/**
 * The settings of `options`, with the environment built clean: the basics and what terminal.env lists (no
 * HOOKWISE_HOME: the config dir is not the agent's). `hidden` (the runner's API key variable, WEBHOOK_SECRET)
 * stays out unless terminal.env names it. A cwd in the config dir or a malformed allow entry is a config error.
 */
export function terminalSettings(
  options: TerminalOptions,
  ctx: Pick<PluginContext, 'configDir' | 'env' | 'scrub'>,
  hidden: readonly string[],
): TerminalSettings {
  const cwd = options.cwd ? resolve(ctx.configDir, options.cwd) : undefined;
  if (cwd && isWithin(cwd, resolve(ctx.configDir)))
    throw new HookwiseError(
      'HW_E_CONFIG',
      `terminal.cwd '${options.cwd}' is in the config dir (${ctx.configDir}), whose .env, config and store the model must never see; point it at a project directory outside it, or leave it out for a fresh work dir per run`,
    );
  const problems = allowProblems(options.allow ?? []);
  if (problems.length) throw new HookwiseError('HW_E_CONFIG', `terminal.allow: ${problems.join('; ')}`);
  const allowed = options.env ?? [];
  const env = childEnvironment(ctx.env, { allow: allowed });
  for (const name of hidden) if (!allowed.includes(name)) delete env[name];
  // The same credential-variable rule as the gateway's outbound scrub, also under a gateway whose `scrub` lacks it.
  const credentials = new ThoroughScrubber(credentialValues(ctx.env, hidden));
  const scrub = (text: string) => credentials.scrub(ctx.scrub ? ctx.scrub(text) : text);
  return { cwd, env, timeoutMs: options.timeout_seconds * 1000, maxOutputBytes: options.max_output_bytes, allow: options.allow, scrub };
}

/** What the terminal needs of the run's sandbox: its configured cwd as the work dir. */
export function terminalSandboxNeeds(settings: TerminalSettings): AgentSandboxNeeds {
  return settings.cwd ? { workDir: settings.cwd } : {};
}

/** The system prompt's paragraph about the terminal, so that the model knows its limits before it hits them. */
export function terminalRule(settings: TerminalSettings): string {
  let rule = `You can run shell commands with the \`${TERMINAL_TOOL_NAME}\` tool: one command per call, run by /bin/sh in ${settings.cwd ?? 'the work directory of this run'}, stopped after ${settings.timeoutMs / 1000}s, output cut at ${settings.maxOutputBytes} bytes. Use it only when the task needs it.`;
  if (settings.allow)
    rule += ` Only these whole commands are allowed (\`*\` is one plain argument, a final \`**\` any number), without shell operators, quotes or paths outside the work directory: ${settings.allow.join(', ')}.`;
  return rule;
}

/** The tool handler for a runner's toolbox; with the run's sandbox every command starts inside it. */
export function terminalTool(settings: TerminalSettings, sandbox?: AgentSandbox): AgentToolHandler {
  return {
    definition: terminalToolDefinition,
    async run(input, signal) {
      const command = input.command;
      if (typeof command !== 'string' || command.trim() === '') {
        return { content: 'error: missing "command"; call terminal with {"command": "<shell command>"}', isError: true };
      }
      const output = await runTerminalCommand(command, { ...settings, signal, sandbox });
      // A secret the command printed (a token it found) never reaches the model's provider.
      const content = settings.scrub ? settings.scrub(output) : output;
      return { content, isError: content.startsWith('refused: ') || content.startsWith('error: ') };
    },
  };
}

function isWithin(path: string, parent: string): boolean {
  const rel = relative(parent, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
