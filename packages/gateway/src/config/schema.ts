// The one JSON Schema of config.yaml (validated at startup, defaults applied) and of a subscription entry; docs are
// generated from it. Their ajv validators are generated ahead of time (src/generated/*.ts, no ajv at run time):
// after changing a schema, regenerate them with
//   npm run build && node packages/gateway/scripts/gen-validators.js && npm run build
// (test/validators.test.ts fails until then) and docs/configuration-reference.md with node scripts/config-reference.js.
import type { StoreConfig } from '@hookwise/core';
import { adminSchema, metricsSchema, tracingSchema, type AdminConfig, type MetricsConfig, type TracingConfig } from './observability-schema';

export const ROUTE_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;
export const INSECURE_NO_AUTH = 'INSECURE_NO_AUTH';
export const DEFAULT_PORT = 8644;
export const DEFAULT_RATE_LIMIT = 30;
/** Failed verifications per client address per minute before it is refused (`auth_failure_limit`). */
export const DEFAULT_AUTH_FAILURE_LIMIT = 60;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const stringList = { type: 'array', items: { type: 'string' } } as const;

/** The silent marker when neither the route nor `agent.silent_marker` names one. */
export const DEFAULT_SILENT_MARKER = '[SILENT]';

/** One payload test of a route's `filter:` (docs/filters.md): a path and one operator, or a JSONata expression. */
const filterTest = {
  type: 'object',
  additionalProperties: false,
  properties: {
    path: { type: 'string', description: 'Dot path into the payload (pull_request.draft, commits.0.id).' },
    equals: { description: 'The value at path equals this (string, number, boolean or null).' },
    not_equals: { description: 'The value at path is missing or differs from this.' },
    in: { type: 'array', minItems: 1, description: 'The value at path is one of these.' },
    not_in: { type: 'array', minItems: 1, description: 'The value at path is missing or none of these.' },
    matches: { type: 'string', description: 'The value at path is a string matching this regular expression.' },
    exists: { type: 'boolean', description: 'true: the path is present (null counts); false: it is missing.' },
    expression: { type: 'string', description: 'A JSONata expression over the payload; the event passes when it is true (instead of path).' },
  },
} as const;

const filterCondition = {
  anyOf: [
    filterTest,
    {
      type: 'object',
      additionalProperties: false,
      required: ['any'],
      properties: { any: { type: 'array', minItems: 1, items: filterTest, description: 'Passes when at least one of these tests passes.' } },
    },
  ],
} as const;

const budgetSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    runs_per_hour: { type: 'integer', minimum: 1, description: 'Agent runs per clock hour.' },
    tokens_per_day: { type: 'integer', minimum: 1, description: 'Tokens (input + output, as runners report them) per UTC day.' },
    when_exceeded: {
      type: 'string',
      enum: ['wait', 'skip'],
      default: 'wait',
      description: 'wait: the job waits for the next window; skip: it ends as skipped without an agent run.',
    },
  },
} as const;

export const routeSchema = {
  type: 'object',
  description: 'A webhook route: POST /webhooks/<name>.',
  additionalProperties: false,
  properties: {
    description: { type: 'string', description: 'What the route is for.' },
    enabled: { type: 'boolean', default: true, description: 'A disabled route answers 404.' },
    events: { ...stringList, description: 'Event types to accept; empty or unset accepts all.' },
    secret: { type: 'string', description: 'Signature secret; falls back to platforms.webhook.extra.secret. INSECURE_NO_AUTH disables verification.' },
    secrets: {
      type: 'array',
      minItems: 1,
      items: { type: 'string' },
      description: 'Several secrets for rotation ([new, old]): any one verifies; the log names the matching one by position. Instead of secret.',
    },
    source: {
      type: 'string',
      description:
        'The sender style this route accepts (github, gitlab, generic, stripe, slack, ...; see docs/sources.md). Unset: any of github, gitlab and generic.',
    },
    source_options: { type: 'object', description: "Options of the route's source (e.g. tolerance_seconds), validated by the source." },
    filter: {
      anyOf: [filterCondition, { type: 'array', minItems: 1, items: filterCondition }],
      description:
        'Payload tests an event must pass to run the agent (all of a list; {any: [...]} for either-or); a filtered event is answered 200 ignored. See docs/filters.md.',
    },
    coalesce: {
      type: 'object',
      additionalProperties: false,
      required: ['key', 'window_seconds'],
      description: 'Events with the same rendered key within the window become one agent run. See docs/filters.md.',
      properties: {
        key: { type: 'string', pattern: '\\S', description: 'Template of the key, e.g. "{repository.full_name}#{pull_request.number}".' },
        window_seconds: { type: 'number', exclusiveMinimum: 0, description: "Seconds from a key's first event to its run." },
        mode: {
          type: 'string',
          enum: ['latest', 'all'],
          default: 'latest',
          description: 'latest: the run sees the last payload; all: also every payload, as {__events__}.',
        },
      },
    },
    concurrency_key: {
      type: 'string',
      pattern: '\\S',
      description: 'Template of a key: runs with the same rendered key never overlap (default: the coalesce key).',
    },
    budget: { ...budgetSchema, description: "Limits on this route's agent runs (agent.budget limits all routes together)." },
    silent_marker: {
      type: 'string',
      pattern: '\\S',
      description: 'An answer that is this marker (or empty) is recorded as silent and not delivered (default: agent.silent_marker).',
    },
    prompt: { type: 'string', description: 'Prompt template with {dot.notation} references; unset dumps the payload as JSON.' },
    skills: { ...stringList, description: 'Skills loaded for the agent run.' },
    deliver: {
      anyOf: [
        { type: 'string' },
        {
          type: 'array',
          minItems: 1,
          items: {
            anyOf: [
              { type: 'string' },
              {
                type: 'object',
                additionalProperties: false,
                required: ['to'],
                properties: {
                  to: { type: 'string', description: 'Deliverer id of this destination.' },
                  extra: {
                    type: 'object',
                    additionalProperties: { type: ['string', 'number', 'boolean'] },
                    description: "This destination's delivery settings, over the route's deliver_extra; values are templates.",
                  },
                },
              },
            ],
          },
        },
      ],
      default: 'log',
      description:
        'Deliverer id: log, none (the agent acts through its tools; nothing is delivered), github_comment, telegram, slack, ... (docs/platforms.md; the SPEC names codehost_a_comment, platform_01..platform_15 work too) or a plugin id; or a list of them (fan-out: each is delivered, retried and receipted on its own), an entry being an id or {to: id, extra: {...}}.',
    },
    deliver_extra: {
      type: 'object',
      additionalProperties: { type: ['string', 'number', 'boolean'] },
      description:
        "Delivery settings (repo, pr_number, chat_id, message_thread_id/thread_id, ...); values are templates. With a list of destinations, shared by all of them (an entry's own extra wins).",
    },
    agent: {
      type: 'object',
      description: 'Overrides the global agent block for this route (runner and its options).',
      properties: { runner: { type: 'string' } },
    },
  },
} as const;

/** One entry of webhook_subscriptions.json: the route schema plus its timestamps; no defaults are applied (toRoute does that). */
export const subscriptionEntrySchema = {
  ...routeSchema,
  properties: {
    ...routeSchema.properties,
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
} as const;

export const configSchema = {
  $id: 'https://hookwise.dev/schema/config.json',
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
                source: { type: 'string', description: 'Default source for routes without their own (unset: any of github, gitlab and generic).' },
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

export interface RouteConfig {
  description?: string;
  enabled?: boolean;
  events?: string[];
  secret?: string;
  secrets?: string[];
  source?: string;
  source_options?: Record<string, unknown>;
  prompt?: string;
  skills?: string[];
  deliver?: DeliverConfig;
  deliver_extra?: Record<string, string | number | boolean>;
  agent?: { runner?: string; [key: string]: unknown };
  filter?: FilterConfig;
  coalesce?: CoalesceConfig;
  concurrency_key?: string;
  budget?: BudgetConfig;
  silent_marker?: string;
}

/** One payload test of `filter:`. */
export interface FilterTest {
  path?: string;
  equals?: unknown;
  not_equals?: unknown;
  in?: unknown[];
  not_in?: unknown[];
  matches?: string;
  exists?: boolean;
  expression?: string;
}
export type FilterCondition = FilterTest | { any: FilterTest[] };
/** `filter:`: one condition, or a list that must all hold. */
export type FilterConfig = FilterCondition | FilterCondition[];

export interface CoalesceConfig {
  key: string;
  window_seconds: number;
  mode?: 'latest' | 'all';
}

export interface BudgetConfig {
  runs_per_hour?: number;
  tokens_per_day?: number;
  when_exceeded?: 'wait' | 'skip';
}

/** One destination of a `deliver` list: an id, or an id with its own deliver_extra. */
export type DeliverEntry = string | { to: string; extra?: Record<string, string | number | boolean> };
/** `deliver`: one deliverer id (the SPEC's form), or a list of destinations (fan-out). */
export type DeliverConfig = string | DeliverEntry[];

export interface PlatformConfig {
  enabled?: boolean;
  home_channel?: string | number;
  api_base?: string;
  [key: string]: unknown;
}

export type PluginSpec = string | [string, Record<string, unknown>?];

export interface WebhookAdapterConfig {
  enabled: boolean;
  extra: {
    host: string;
    port: number;
    secret?: string;
    secrets?: string[];
    source?: string;
    source_options?: Record<string, unknown>;
    rate_limit: number;
    max_body_bytes: number;
    public_url?: string;
    auth_failure_limit: number;
    trusted_proxies: string[];
    shutdown_timeout_seconds?: number;
    routes: Record<string, RouteConfig>;
  };
}

export interface HookwiseConfig {
  platforms: {
    webhook: WebhookAdapterConfig;
    [platform: string]: PlatformConfig | WebhookAdapterConfig;
  };
  agent: { runner: string; timeout_seconds: number; concurrency: number; budget?: BudgetConfig; silent_marker?: string; [key: string]: unknown };
  retry: { max_attempts: number; base_delay_seconds: number; max_delay_seconds: number };
  /** `backend`, `max_pending`, `lease_seconds`, and the backend's own options (validated by its optionsSchema). */
  store: StoreConfig;
  log: { level: 'error' | 'warn' | 'info' | 'debug'; format: 'pretty' | 'json'; access: boolean };
  skills: { dirs?: string[] };
  plugins: PluginSpec[];
  /** Optional in the type for configs built in code; a loaded config always has them (defaults applied). */
  admin?: AdminConfig;
  metrics?: MetricsConfig;
  tracing?: TracingConfig;
}
