// The one JSON Schema of config.yaml (validated at startup, defaults applied) and of a subscription entry; docs are
// generated from it. Their ajv validators are generated ahead of time (src/generated/*.ts, no ajv at run time):
// after changing a schema, regenerate them with
//   npm run build && node packages/gateway/scripts/gen-validators.js && npm run build
// (test/validators.test.ts fails until then) and docs/configuration-reference.md with node scripts/config-reference.js.
import { adminSchema, metricsSchema, tracingSchema } from './observability-schema';
import { budgetSchema, routeSchema, stringList } from './route-schema';
import { MAX_OUTPUT_KB_SCHEMA, sandboxSchema } from './sandbox-schema';
import { modelProxySchema } from './model-proxy-schema';
import { notifySchema } from './notify-schema';
import { mcpSchema } from './mcp-schema';

// The route's schema and the config's types live beside this file; they are re-exported from here, where
// callers (and gen-validators.js) have always found them.
export { routeSchema, subscriptionEntrySchema } from './route-schema';
export type { BudgetConfig, CoalesceConfig, DeliverConfig, DeliverEntry, FilterCondition, FilterConfig, FilterTest, RouteConfig } from './route-schema';
export type { HookwiseConfig, PlatformConfig, PluginSpec, WebhookAdapterConfig } from './config-types';

export const ROUTE_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;
export const INSECURE_NO_AUTH = 'INSECURE_NO_AUTH';
export const DEFAULT_PORT = 8644;
export const DEFAULT_RATE_LIMIT = 30;
/** Failed verifications per client address per minute before it is refused (`auth_failure_limit`). */
export const DEFAULT_AUTH_FAILURE_LIMIT = 60;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** The silent marker when neither the route nor `agent.silent_marker` names one. */
export const DEFAULT_SILENT_MARKER = '[SILENT]';

export const configSchema = {
  $id: 'urn:hookwise:config',
  title: 'Hookwise config.yaml',
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    platforms: {
      type: 'object',
      default: {},
      description: 'The webhook adapter and the delivery platforms, by id.',
      properties: {
        webhook: {
          type: 'object',
          default: {},
          additionalProperties: false,
          properties: {
            enabled: { type: 'boolean', default: false, description: 'Enables the webhook adapter (env WEBHOOK_ENABLED).' },
            extra: {
              type: 'object',
              default: {},
              additionalProperties: false,
              properties: {
                host: { type: 'string', default: '0.0.0.0', description: 'Interface to bind (env WEBHOOK_HOST).' },
                port: { type: 'integer', minimum: 0, maximum: 65535, default: DEFAULT_PORT, description: 'HTTP port (env WEBHOOK_PORT).' },
                secret: { type: 'string', description: 'Global fallback secret (env WEBHOOK_SECRET; a comma-separated list there rotates).' },
                secrets: {
                  type: 'array',
                  minItems: 1,
                  items: { type: 'string' },
                  description: 'Global fallback secrets for rotation ([new, old]), instead of secret.',
                },
                source: {
                  type: 'string',
                  description:
                    "Default source for routes without their own (unset: the distribution's default sources, by their headers; see docs/sources.md).",
                },
                source_options: { type: 'object', description: 'Options of the default source.' },
                rate_limit: { type: 'integer', minimum: 1, default: DEFAULT_RATE_LIMIT, description: 'Requests per minute per route (fixed window).' },
                max_body_bytes: { type: 'integer', minimum: 1, default: DEFAULT_MAX_BODY_BYTES, description: 'Largest accepted body in bytes.' },
                public_url: { type: 'string', description: 'Base URL printed for subscriptions, when the gateway sits behind a proxy.' },
                auth_failure_limit: {
                  type: 'integer',
                  minimum: 0,
                  default: DEFAULT_AUTH_FAILURE_LIMIT,
                  description:
                    'Failed verifications per client address per minute; a client over it is answered 429 with Retry-After, without verification, until its minute ends. 0 turns it off.',
                },
                trusted_proxies: {
                  type: 'array',
                  items: { type: 'string' },
                  default: [],
                  description:
                    'Addresses or CIDR ranges of reverse proxies whose X-Forwarded-For names the client (for auth_failure_limit). Empty: the header is never trusted.',
                },
                shutdown_timeout_seconds: {
                  type: 'number',
                  minimum: 0,
                  default: 10,
                  description: 'On SIGTERM/SIGINT, how long running jobs may finish before they are handed back to the queue for the next start.',
                },
                routes: { type: 'object', default: {}, additionalProperties: routeSchema, description: 'Static routes by name.' },
              },
            },
          },
        },
      },
      additionalProperties: {
        type: 'object',
        description: 'A delivery platform: enabled, home_channel, api_base and its credentials (see the plugin README).',
        properties: {
          enabled: { type: 'boolean', default: false },
          home_channel: { type: ['string', 'number'] },
          api_base: { type: 'string' },
        },
      },
    },
    agent: {
      type: 'object',
      default: {},
      description: 'The agent runner and its options.',
      properties: {
        runner: { type: 'string', default: 'echo', description: 'echo, command, openai or a plugin id.' },
        timeout_seconds: { type: 'number', exclusiveMinimum: 0, default: 300, description: 'A run longer than this is aborted and retried.' },
        concurrency: { type: 'integer', minimum: 1, default: 2, description: 'Simultaneous agent runs.' },
        budget: { ...budgetSchema, description: "Limits on all routes' agent runs together (each route may have its own budget too)." },
        silent_marker: {
          type: 'string',
          pattern: '\\S',
          default: DEFAULT_SILENT_MARKER,
          description: 'An answer that is this marker (or empty) is recorded as silent and not delivered.',
        },
        max_output_kb: MAX_OUTPUT_KB_SCHEMA,
        sandbox: sandboxSchema,
        model_proxy: modelProxySchema,
      },
    },
    retry: {
      type: 'object',
      default: {},
      additionalProperties: false,
      description: 'Retries of failed agent runs and deliveries (exponential backoff with jitter).',
      properties: {
        max_attempts: { type: 'integer', minimum: 1, default: 5, description: 'Attempts per step before the job becomes a dead letter.' },
        base_delay_seconds: { type: 'number', minimum: 0, default: 2, description: 'Delay before the first retry; doubles each time.' },
        max_delay_seconds: { type: 'number', minimum: 0, default: 600, description: 'Longest delay between retries.' },
      },
    },
    store: {
      type: 'object',
      default: {},
      // The backend's own keys (sqlite: path, synchronous; redis: url, prefix; ...) are checked by its optionsSchema
      // when the store is opened, where the backend is known; problems name `store.<key>` all the same.
      additionalProperties: true,
      description:
        'Where delivery ids, rate-limit windows and jobs live. Besides the keys below, the options of the chosen backend: sqlite (path, synchronous) and redis (url, prefix) are documented in their package READMEs, a third-party store in its own.',
      properties: {
        backend: {
          type: 'string',
          default: 'sqlite',
          description:
            'sqlite (default, a file in the config dir), memory (lost on restart), redis, the id of a store a plugin of plugins: contributes, or a store package name (x, hookwise-plugin-x, @scope/x) installed in the config dir.',
        },
        max_pending: { type: 'integer', minimum: 1, default: 10000, description: 'Above this many pending jobs new events get 503.' },
        lease_seconds: {
          type: 'number',
          minimum: 1,
          default: 30,
          description:
            "How long a gateway holds a running job without renewing it (renewed every third of it). A killed gateway's jobs are taken over sooner: after 5 s without its heartbeat (sqlite) or once its 5 s job lock lapses (redis).",
        },
        // Checked again by store-backend.ts when the store is opened (a store opened without the schema, as the CLI
        // does, gets the same answer); listed here so a typo is caught with the rest and the reference documents it.
        retention: {
          type: 'object',
          additionalProperties: false,
          description:
            'How long the store keeps done jobs (what deliveries, deliveries usage and routes try read); dead letters and waiting jobs are never deleted by age. Handed to every backend, a third-party store included. See docs/operations.md#retention.',
          properties: {
            jobs_days: {
              type: 'number',
              exclusiveMinimum: 0,
              description: 'Days a done job is kept after it finished (default 7); `hookwise store purge` deletes older ones at once.',
            },
          },
        },
      },
    },
    log: {
      type: 'object',
      default: {},
      additionalProperties: false,
      properties: {
        level: { type: 'string', enum: ['error', 'warn', 'info', 'debug'], default: 'info' },
        format: { type: 'string', enum: ['pretty', 'json'], default: 'pretty' },
        access: {
          type: 'boolean',
          default: true,
          description:
            'An access line per HTTP request at info (method, path, status, outcome, route, event, delivery id, duration, client; GET /health at debug), in the log format. false turns it off.',
        },
      },
    },
    skills: {
      type: 'object',
      default: {},
      additionalProperties: false,
      properties: { dirs: { ...stringList, description: 'Extra skill directories (relative to the config dir).' } },
    },
    admin: adminSchema,
    metrics: metricsSchema,
    tracing: tracingSchema,
    notify: notifySchema,
    mcp: mcpSchema,
    plugins: {
      type: 'array',
      default: [],
      description: 'Third-party plugins: package names, short names, relative paths, or [name, options].',
      items: {
        anyOf: [{ type: 'string' }, { type: 'array', minItems: 1, maxItems: 2, items: [{ type: 'string' }, { type: 'object' }] }],
      },
    },
  },
} as const;
