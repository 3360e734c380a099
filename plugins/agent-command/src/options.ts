// Options of the `command` agent runner (the config's `agent:` block minus runner/timeout_seconds/concurrency).
import type { OptionsSchema } from '@hookwise/core';

export interface CommandRunnerOptions {
  /**
   * argv: program first, then its arguments; `{prompt}` inside an argument switches off stdin mode. With a
   * `preset`: the program to start instead of the preset's (e.g. an absolute path), arguments allowed.
   */
  command?: string[];
  /** A known agent CLI (./presets): its non-interactive flags, skills channel and JSON output are built in. */
  preset?: 'claude' | 'codex' | 'gemini' | 'opencode';
  /** With a preset: arguments added after the preset's flags (`["--model", "sonnet"]`). */
  args?: string[];
  /**
   * With the claude or codex preset: the home (absolute, or `~`) whose subscription login the runs use; each run
   * gets a read-only copy of only that login file in its private home (./preset-login).
   */
  login_from?: string;
  /** Working directory; relative paths are taken from the config dir. Default: the config dir. */
  cwd?: string;
  /**
   * What the child gets besides the basics (PATH, HOME, locale, ...): a list of variable names passed from the
   * gateway's environment (the allowlist; `NAME=value` entries set a value), or a map of values to set.
   */
  env?: Record<string, string> | string[];
  /**
   * Pass the rest of the gateway's environment too, except credentials (names like *_SECRET, *_TOKEN, *_API_KEY
   * and the values of the gateway's secrets) unless `env` lists them. Default false.
   */
  inherit_env: boolean;
  /** The runner's own time limit in seconds; the worker's `agent.timeout_seconds` applies as well. */
  timeout_seconds?: number;
  /** Seconds between SIGTERM and SIGKILL when a run is stopped. */
  kill_grace_seconds: number;
  /** Stdout beyond this many bytes is dropped and the answer marked as cut. */
  max_output_bytes: number;
}

export const PROMPT_PLACEHOLDER = '{prompt}';

export const commandOptionsSchema: OptionsSchema = {
  type: 'object',
  anyOf: [{ required: ['command'] }, { required: ['preset'] }],
  additionalProperties: false,
  properties: {
    command: {
      type: 'array',
      minItems: 1,
      items: { type: 'string' },
      description: 'argv of the agent CLI, e.g. ["claude", "-p"]; no shell is involved.',
    },
    preset: {
      enum: ['claude', 'codex', 'gemini', 'opencode'],
      description: 'A known agent CLI: its non-interactive flags, skills channel and JSON output (answer and token usage) are built in.',
    },
    args: { type: 'array', items: { type: 'string' }, description: 'With a preset: arguments after its flags, e.g. ["--model", "sonnet"].' },
    login_from: {
      type: 'string',
      minLength: 1,
      description:
        'claude and codex presets: the home (absolute, or ~) whose subscription login (~/.claude/.credentials.json, ~/.codex/auth.json) the runs use; each run gets a read-only copy of that file alone.',
    },
    cwd: { type: 'string', minLength: 1 },
    env: {
      description:
        'Variables for the child besides PATH, HOME and the locale: names passed from the gateway environment (["ANTHROPIC_API_KEY"]; "NAME=value" sets one), or a map of values.',
      oneOf: [
        { type: 'object', additionalProperties: { type: 'string' } },
        { type: 'array', items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*(=.*)?$' } },
      ],
    },
    inherit_env: { type: 'boolean', default: false, description: 'Also pass the rest of the gateway environment, credentials excepted unless listed in env.' },
    timeout_seconds: { type: 'number', exclusiveMinimum: 0 },
    kill_grace_seconds: { type: 'number', minimum: 0, default: 5 },
    max_output_bytes: { type: 'integer', minimum: 1, default: 1048576 },
  },
};
