// The JSON Schema of a route (a static route in config.yaml, or an entry of webhook_subscriptions.json) and its
// TypeScript shape. Part of config.yaml's schema (schema.ts); after changing it, regenerate the validators as
// schema.ts says.

import { actionsSchema, type ActionsConfig } from './actions-schema';
import { conversationSchema, type ConversationConfig } from './conversation-schema';
import { approvalSchema, type ApprovalConfig } from './approval-schema';
import { MAX_OUTPUT_KB_SCHEMA, sandboxSchema, type SandboxConfig } from './sandbox-schema';
import { scheduleSchema, type ScheduleConfig } from './schedule-schema';
import { transformSchema, type TransformConfig } from './transform-schema';

export const stringList = { type: 'array', items: { type: 'string' } } as const;

/** One payload test of a route's `filter:` (docs/filters.md): a path and one operator, or a JSONata expression. */
const filterTest = {
  type: 'object',
  additionalProperties: false,
  properties: {
    path: {
      type: 'string',
      description: 'Dot path into the payload (pull_request.draft, commits.0.id), or headers.<lower-case name>, or event (the event type).',
    },
    equals: { description: 'The value at path equals this (string, number, boolean or null).' },
    not_equals: { description: 'The value at path is missing or differs from this.' },
    in: { type: 'array', minItems: 1, description: 'The value at path is one of these.' },
    not_in: { type: 'array', minItems: 1, description: 'The value at path is missing or none of these.' },
    matches: { type: 'string', description: 'The value at path is a string matching this regular expression.' },
    exists: { type: 'boolean', description: 'true: the path is present (null counts); false: it is missing.' },
    contains: { description: 'The string at path contains this text, or the list at path has this element.' },
    missing: { type: 'boolean', description: 'true: the path is missing; false: it is present.' },
    in_file: { type: 'string', description: 'The value at path is a line of this file (relative to the config dir; re-read when it changes).' },
    not: { type: 'object', description: 'Passes when this test (with the outer path, unless it names its own) fails.' },
    expression: {
      type: 'string',
      description: 'A JSONata expression over the payload (with headers and event beside its keys); the event passes when it is true (instead of path).',
    },
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

export const budgetSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    runs_per_hour: { type: 'integer', minimum: 1, description: 'Agent runs per clock hour.' },
    tokens_per_day: { type: 'integer', minimum: 1, description: 'Tokens (input + output, as runners report them) per UTC day.' },
    usd_per_day: { type: 'number', exclusiveMinimum: 0, description: "US dollars per UTC day, as the model proxy prices the runs' model calls." },
    tokens_per_run: {
      type: 'integer',
      minimum: 1,
      description: 'Tokens one run may use: the model proxy refuses its next model call past it and the job ends budget_exceeded.',
    },
    usd_per_run: {
      type: 'number',
      exclusiveMinimum: 0,
      description: 'US dollars one run may spend: the model proxy refuses its next model call past it and the job ends budget_exceeded.',
    },
    per: {
      type: 'string',
      pattern: '\\S',
      description: 'Key template, e.g. "{sender.login}": each rendered key has windows of its own for runs_per_hour, tokens_per_day and usd_per_day.',
    },
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
    mcp_private_fields: {
      type: 'array',
      items: { type: 'string', pattern: '^[^.]+(\\.[^.]+)*$' },
      description:
        "Payload paths (dot notation as in filter:, list elements by index, * for every key or element: pull_request.user.email, commits.*.author.email) that never leave through MCP Events: taken out of `data` in events/poll, events/stream and webhook deliveries, and invisible to a subscriber's filter. See docs/mcp-events.md.",
    },
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
        "The sender style this route accepts: a source plugin's id (see docs/sources.md). Unset: any of the distribution's default sources, by their headers.",
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
    transform: transformSchema,
    actions: actionsSchema,
    conversation: conversationSchema,
    approval: approvalSchema,
    allow_from: {
      type: 'array',
      minItems: 1,
      items: { anyOf: [{ type: 'string', pattern: '\\S' }, { type: 'integer' }] },
      description:
        "Who may start an agent run on a route with a chat source (telegram, slack, discord, matrix, whatsapp, twilio, ...): the platform's user ids (Telegram from.id, Slack user, a Matrix @user:server, a phone number), or '*' for anyone who can message the bot (logged as a warning at startup). Required on such routes; others' messages are answered 200 ignored (not_allowed).",
    },
    deliver_only: { type: 'boolean', description: 'true: no agent; the rendered prompt is delivered within the request (200 delivered, or 502).' },
    schedule: scheduleSchema,
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
        "Deliverer id: log, none (the agent acts through its tools; nothing is delivered), or a deliverer plugin's id (docs/platforms.md; older names work too, see its Compatibility section); or a list of them (fan-out: each is delivered, retried and receipted on its own), an entry being an id or {to: id, extra: {...}}.",
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
      properties: {
        runner: { type: 'string' },
        sandbox: sandboxSchema,
        max_output_kb: MAX_OUTPUT_KB_SCHEMA,
        prompt_hygiene: {
          type: 'boolean',
          description:
            "true (default): payload text loses invisible and bidirectional control characters and HTML comments before the prompt is rendered (text a reviewer never sees but a model reads); false: the payload reaches the prompt as it came. The template's own text is never changed.",
        },
      },
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
    created_by: {
      type: 'object',
      additionalProperties: false,
      required: ['route', 'job'],
      description:
        'Set when an agent run made the entry through its job channel (the route and job of that run); adopted_at: when the operator kept its settings.',
      properties: { route: { type: 'string' }, job: { type: 'string' }, adopted_at: { type: 'string' } },
    },
  },
} as const;

export interface RouteConfig {
  description?: string;
  enabled?: boolean;
  events?: string[];
  mcp_private_fields?: string[];
  secret?: string;
  secrets?: string[];
  source?: string;
  source_options?: Record<string, unknown>;
  prompt?: string;
  skills?: string[];
  deliver?: DeliverConfig;
  deliver_extra?: Record<string, string | number | boolean>;
  agent?: { runner?: string; sandbox?: SandboxConfig; max_output_kb?: number; prompt_hygiene?: boolean; [key: string]: unknown };
  filter?: FilterConfig;
  coalesce?: CoalesceConfig;
  concurrency_key?: string;
  budget?: BudgetConfig;
  silent_marker?: string;
  transform?: TransformConfig;
  actions?: ActionsConfig;
  conversation?: ConversationConfig;
  approval?: ApprovalConfig;
  allow_from?: Array<string | number>;
  deliver_only?: boolean;
  schedule?: ScheduleConfig;
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
  contains?: unknown;
  missing?: boolean;
  in_file?: string;
  not?: FilterTest;
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
  usd_per_day?: number;
  tokens_per_run?: number;
  usd_per_run?: number;
  per?: string;
  when_exceeded?: 'wait' | 'skip';
}

/** One destination of a `deliver` list: an id, or an id with its own deliver_extra. */
export type DeliverEntry = string | { to: string; extra?: Record<string, string | number | boolean> };
/** `deliver`: one deliverer id (the SPEC's form), or a list of destinations (fan-out). */
export type DeliverConfig = string | DeliverEntry[];
