// The TypeScript shape of a loaded config.yaml (defaults applied), beside its JSON Schema in schema.ts.
import type { StoreConfig } from '@hookwise/core';
import type { AdminConfig, MetricsConfig, TracingConfig } from './observability-schema';
import type { BudgetConfig, RouteConfig } from './route-schema';
import type { SandboxConfig } from './sandbox-schema';
import type { ModelProxyConfig } from './model-proxy-schema';
import type { NotifyTarget } from './notify-schema';
import type { McpConfig } from './mcp-schema';

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
  agent: {
    runner: string;
    timeout_seconds: number;
    concurrency: number;
    budget?: BudgetConfig;
    silent_marker?: string;
    sandbox?: SandboxConfig;
    max_output_kb?: number;
    model_proxy?: ModelProxyConfig;
    [key: string]: unknown;
  };
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
  /** Outbound lifecycle webhooks (observe/lifecycle-webhooks.ts). */
  notify?: NotifyTarget[];
  /** The MCP Events server's clients (mcp-events/). */
  mcp?: McpConfig;
}
