// The `mcp:` block: the gateway as an MCP Events server on the admin listener (POST /mcp, docs/mcp-events.md).
// Each client is a name, the environment variable that holds its bearer token, and the event types it may see.
// Part of configSchema (schema.ts); after changing it, regenerate the validators as schema.ts says.

export const mcpSchema = {
  type: 'object',
  default: {},
  additionalProperties: false,
  description: 'The gateway as an MCP Events server at POST /mcp on the admin listener (needs admin.enabled). See docs/mcp-events.md.',
  properties: {
    clients: {
      type: 'object',
      default: {},
      description: 'MCP clients by name: each authenticates with its own bearer token and sees only the event types it is given.',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        required: ['token_env', 'events'],
        properties: {
          token_env: {
            type: 'string',
            pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
            description: "The environment variable (or <config_dir>/.env entry) holding the client's bearer token, at least 16 characters.",
          },
          events: {
            type: 'array',
            minItems: 1,
            items: { type: 'string' },
            description:
              'Event types the client may list and poll: route names or glob patterns (`*` matches within a name part: `prs`, `prs/*`, `ci-*`, `*`). A route given whole brings its `<route>/<event>` types too.',
          },
        },
      },
    },
  },
} as const;

export interface McpClientConfig {
  token_env: string;
  events: string[];
}

export interface McpConfig {
  clients: Record<string, McpClientConfig>;
}
