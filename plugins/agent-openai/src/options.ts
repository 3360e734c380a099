// Options of the `openai` agent runner (the config's `agent:` block minus runner/timeout_seconds/concurrency).
import type { OptionsSchema } from '@hookwise/core';
import { mcpServersSchema, terminalOptionsSchema, type McpServerOptions, type TerminalOptions } from '@hookwise/agent-kit';

export type { TerminalOptions } from '@hookwise/agent-kit';

export interface OpenAIRunnerOptions {
  base_url: string;
  model: string;
  /** Name of the environment variable holding the API key (never the key itself). */
  api_key_env: string;
  temperature?: number;
  max_tokens?: number;
  /** Time limit of one HTTP request to the model, in seconds. */
  timeout_seconds: number;
  /** Retries of one request on 429, 5xx and network errors. */
  max_retries: number;
  tools: Array<'terminal'>;
  /** Most model requests in one run (each tool round trip is one step). */
  max_steps: number;
  terminal: TerminalOptions;
  /** MCP servers whose tools the model may call. */
  mcp_servers: McpServerOptions[];
}

export const openaiOptionsSchema: OptionsSchema = {
  type: 'object',
  required: ['model'],
  additionalProperties: false,
  properties: {
    base_url: { type: 'string', minLength: 1, default: 'https://api.openai.com/v1' },
    model: { type: 'string', minLength: 1 },
    api_key_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', default: 'OPENAI_API_KEY' },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    max_tokens: { type: 'integer', minimum: 1 },
    timeout_seconds: { type: 'number', exclusiveMinimum: 0, default: 120 },
    max_retries: { type: 'integer', minimum: 0, maximum: 10, default: 3 },
    tools: { type: 'array', uniqueItems: true, items: { enum: ['terminal'] }, default: [] },
    max_steps: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    terminal: terminalOptionsSchema,
    mcp_servers: mcpServersSchema,
  },
};
