// Options of the `anthropic` agent runner (the config's `agent:` block minus runner/timeout_seconds/concurrency).
import type { OptionsSchema } from '@hookwise/core';
import { mcpServersSchema, terminalOptionsSchema, type McpServerOptions, type TerminalOptions } from '@hookwise/agent-kit';

export interface AnthropicRunnerOptions {
  /** Where the API is; `/v1/messages` is appended. */
  base_url: string;
  model: string;
  /** Name of the environment variable holding the API key (never the key itself). */
  api_key_env: string;
  /** Most tokens of one response; the Messages API requires it. */
  max_tokens: number;
  temperature?: number;
  /** Time limit of one HTTP request, in seconds. */
  timeout_seconds: number;
  /** Retries of one request on 429, 529, 5xx and network errors. */
  max_retries: number;
  tools: Array<'terminal'>;
  /** Most requests in one run (each tool round trip is one). */
  max_steps: number;
  terminal: TerminalOptions;
  mcp_servers: McpServerOptions[];
}

export const anthropicOptionsSchema: OptionsSchema = {
  type: 'object',
  required: ['model'],
  additionalProperties: false,
  properties: {
    base_url: { type: 'string', pattern: '^https?://', default: 'https://api.anthropic.com', description: 'Where the API is; /v1/messages is appended.' },
    model: { type: 'string', minLength: 1, description: 'Model name, e.g. claude-sonnet-4-5.' },
    api_key_env: {
      type: 'string',
      pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
      default: 'ANTHROPIC_API_KEY',
      description: 'Environment variable holding the API key.',
    },
    max_tokens: { type: 'integer', minimum: 1, default: 4096, description: 'Most tokens of one response.' },
    temperature: { type: 'number', minimum: 0, maximum: 1 },
    timeout_seconds: { type: 'number', exclusiveMinimum: 0, default: 120, description: 'Limit of one HTTP request.' },
    max_retries: { type: 'integer', minimum: 0, maximum: 10, default: 3 },
    tools: { type: 'array', uniqueItems: true, items: { enum: ['terminal'] }, default: [] },
    max_steps: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    terminal: terminalOptionsSchema,
    mcp_servers: mcpServersSchema,
  },
};
