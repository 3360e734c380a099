// The config blocks of what an operator watches a gateway with: `admin:` (the /api admin API and the /ui
// dashboard), `metrics:` (Prometheus at /metrics) and `tracing:` (OpenTelemetry spans). Part of configSchema.

export const DEFAULT_MAX_ROUTE_LABELS = 100;

export const adminSchema = {
  type: 'object',
  default: {},
  additionalProperties: false,
  description: 'The admin HTTP API under /api and the dashboard at /ui (docs/operations.md#admin-api-and-dashboard).',
  properties: {
    enabled: {
      type: 'boolean',
      default: false,
      description: 'Serve the admin API under /api (list, show, replay and retry deliveries); the CLI uses it when the gateway runs.',
    },
    ui: { type: 'boolean', default: false, description: 'Serve the dashboard at /ui (turns the admin API on too).' },
    token: {
      type: 'string',
      description:
        "Bearer token for /api and the dashboard's sign-in (keep it in .env: ${HOOKWISE_ADMIN_TOKEN}). At least 16 characters. Without it only clients on loopback are served.",
    },
  },
} as const;

export const metricsSchema = {
  type: 'object',
  default: {},
  additionalProperties: false,
  description: 'Prometheus metrics at GET /metrics (docs/operations.md#metrics).',
  properties: {
    enabled: { type: 'boolean', default: false, description: 'Serve GET /metrics in the Prometheus text format.' },
    token: { type: 'string', description: 'When set, /metrics asks for `Authorization: Bearer <token>` (at least 16 characters).' },
    max_route_labels: {
      type: 'integer',
      minimum: 1,
      default: DEFAULT_MAX_ROUTE_LABELS,
      description: 'Distinct route label values at most; further routes are counted as route="(other)", unknown ones as route="(unknown)".',
    },
  },
} as const;

export const tracingSchema = {
  type: 'object',
  default: {},
  additionalProperties: false,
  description: 'OpenTelemetry traces: one trace per event, receipt to agent to each delivery (docs/operations.md#traces).',
  properties: {
    enabled: {
      type: 'boolean',
      default: false,
      description:
        'Make spans through @opentelemetry/api; they go wherever the OpenTelemetry SDK registered in the process sends them (none: nothing is recorded).',
    },
  },
} as const;

export interface AdminConfig {
  enabled: boolean;
  ui: boolean;
  token?: string;
}

export interface MetricsConfig {
  enabled: boolean;
  token?: string;
  max_route_labels: number;
}

export interface TracingConfig {
  enabled: boolean;
}
