// The options every platform shares (home_channel, api_base, timeout_seconds, allowed_targets, max_parts)
// merged into a plugin's own JSON Schema, so that all fifteen platforms spell and validate them the same way.
import type { OptionsSchema } from '@hookwise/core';

export interface PlatformOptions {
  /** Default target when a route gives no deliver_extra.chat_id. */
  home_channel?: string;
  /** Base URL of the platform API (public default, or a self-hosted server, or a test server). */
  api_base?: string;
  /** Per-request timeout. */
  timeout_seconds?: number;
  /** What deliver_extra.chat_id may name: exact ids or `/regex/` (whole id). home_channel is always allowed. */
  allowed_targets?: string[];
  /** Most parts one answer is split into; the last part then ends with a truncation notice. */
  max_parts?: number;
}

export interface PlatformSchemaInput {
  /** The plugin's own keys (credentials, ...). */
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  /**
   * Default for api_base; omit where the service is self-hosted (api_base is then required); `null` where the
   * platform has no HTTP API at all (SMTP): the key is then not accepted.
   */
  apiBase?: string | null;
  /** Further JSON-Schema keywords for the whole object (anyOf, ...). */
  extra?: Record<string, unknown>;
}

export function platformOptionsSchema(input: PlatformSchemaInput): OptionsSchema {
  const apiBase: Record<string, unknown> = {
    type: 'string',
    pattern: '^https?://',
    description: 'Base URL of the API (override for self-hosted servers or tests).',
  };
  if (typeof input.apiBase === 'string') apiBase.default = input.apiBase;
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      enabled: { type: 'boolean' },
      home_channel: { type: 'string', minLength: 1, description: 'Target used when deliver_extra.chat_id is not given.' },
      ...(input.apiBase === null ? {} : { api_base: apiBase }),
      timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: 300, default: 15, description: 'Timeout of each HTTP request.' },
      allowed_targets: {
        type: 'array',
        minItems: 1,
        items: { type: 'string', minLength: 1 },
        description: 'What deliver_extra.chat_id may name: exact ids or /regex/ (matching the whole id). home_channel is always allowed.',
      },
      max_parts: {
        type: 'integer',
        minimum: 1,
        maximum: 1000,
        description: 'Most messages one answer is split into; the last one then says the answer was cut.',
      },
      ...input.properties,
    },
    required: [...(input.apiBase === undefined ? ['api_base'] : []), ...(input.required ?? [])],
    ...input.extra,
  };
}
