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
    webhooks: {
      type: 'object',
      default: {},
      additionalProperties: false,
      description:
        "Webhook delivery to subscribers (events/subscribe): each accepted event is POSTed to the subscription's callback URL, signed in the Standard Webhooks format.",
      properties: {
        allow_loopback: {
          type: 'boolean',
          default: false,
          description:
            'Let callbacks go to this machine (localhost, 127.0.0.1, ::1), over http too: for tests and a subscriber on the same host. Otherwise a callback must be https and resolve to a public address.',
        },
        max_per_client: {
          type: 'integer',
          minimum: 1,
          default: 20,
          description: 'Webhook subscriptions one client may hold at once.',
        },
      },
    },
  },
} as const;

export interface McpClientConfig {
  token_env: string;
  events: string[];
}

export interface McpWebhooksConfig {
  allow_loopback?: boolean;
  max_per_client?: number;
}

export interface McpConfig {
  clients: Record<string, McpClientConfig>;
  webhooks?: McpWebhooksConfig;
}
