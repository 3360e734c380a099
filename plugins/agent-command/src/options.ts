// Options of the `command` agent runner (the config's `agent:` block minus runner/timeout_seconds/concurrency).
import type { OptionsSchema } from '@hookwise/core';

export interface CommandRunnerOptions {
  /** argv: program first, then its arguments; `{prompt}` inside an argument switches off stdin mode. */
  command: string[];
  /** Working directory; relative paths are taken from the config dir. Default: the config dir. */
  cwd?: string;
  /** Extra environment variables for the child (on top of the gateway's environment unless inherit_env is false). */
  env?: Record<string, string>;
  /** Pass the gateway's own environment to the child. Default true (agent CLIs read their API keys from it). */
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
  required: ['command'],
  additionalProperties: false,
  properties: {
    command: {
      type: 'array',
      minItems: 1,
      items: { type: 'string' },
      description: 'argv of the agent CLI, e.g. ["claude", "-p"]; no shell is involved.',
    },
    cwd: { type: 'string', minLength: 1 },
    env: { type: 'object', additionalProperties: { type: 'string' } },
    inherit_env: { type: 'boolean', default: true },
    timeout_seconds: { type: 'number', exclusiveMinimum: 0 },
    kill_grace_seconds: { type: 'number', minimum: 0, default: 5 },
    max_output_bytes: { type: 'integer', minimum: 1, default: 1048576 },
  },
};
