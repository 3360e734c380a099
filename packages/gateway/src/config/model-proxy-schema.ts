// `agent.model_proxy`: the gateway's model proxy (model-proxy/), which every model call of an agent run goes
// through, so that the model key stays in the gateway and each call is priced and held to the run's budget.
// Keys are named by the environment variables that hold them, never written in the config.

const priceSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['input', 'output'],
  description: 'US dollars per million tokens.',
  properties: {
    input: { type: 'number', minimum: 0, description: 'Input tokens not read from the cache.' },
    output: { type: 'number', minimum: 0, description: 'Output tokens.' },
    cache_read: { type: 'number', minimum: 0, description: 'Input tokens read from the prompt cache (default: the input price).' },
    cache_write: { type: 'number', minimum: 0, description: 'Input tokens written to the prompt cache (default: the input price).' },
  },
} as const;

const providerSchema = (name: string, baseUrl: string, baseEnv: string, keyEnv: string) =>
  ({
    type: 'object',
    additionalProperties: false,
    description: `Where ${name} calls go and the variable that holds their key.`,
    properties: {
      base_url: {
        type: 'string',
        pattern: '^https?://',
        description: `The upstream API (default: the gateway's ${baseEnv} when set, else ${baseUrl}).`,
      },
      api_key_env: {
        type: 'string',
        pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
        default: keyEnv,
        description: `The gateway's environment variable that holds the key (default ${keyEnv}); unset or empty: calls go without a key (a local model server).`,
      },
    },
  }) as const;

export const modelProxySchema = {
  type: 'object',
  additionalProperties: false,
  description:
    "The gateway's model proxy: each agent run's model calls go through the gateway, which adds the real key, prices each call and holds the run to its budget. See docs/agents.md#the-model-proxy.",
  properties: {
    enabled: {
      type: 'boolean',
      description:
        "true: every agent run gets the proxy URL and a per-run token instead of a model key. Unset (auto): so do the runs of routes whose runner starts agent processes (command and its presets) whenever the gateway holds a provider's key, so that the key never enters their sandbox. false: off; the CLIs get the key itself (a startup warning says so).",
    },
    providers: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        anthropic: providerSchema('Anthropic Messages (/v1/messages)', 'https://api.anthropic.com', 'ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY'),
        openai: providerSchema(
          'OpenAI Chat Completions and Responses (/v1/chat/completions, /v1/responses), or an OpenAI-compatible server',
          'https://api.openai.com/v1',
          'OPENAI_BASE_URL',
          'OPENAI_API_KEY',
        ),
        gemini: providerSchema(
          "Google's Gemini API (/v1beta/models/<model>:generateContent and :streamGenerateContent)",
          'https://generativelanguage.googleapis.com',
          'GOOGLE_GEMINI_BASE_URL',
          'GEMINI_API_KEY',
        ),
      },
    },
    pricing: {
      type: 'object',
      description: 'Prices per model over the built-in table (model-proxy/model-prices.ts); a key matches a model name or its start.',
      additionalProperties: priceSchema,
    },
  },
} as const;

export interface ModelPriceConfig {
  input: number;
  output: number;
  cache_read?: number;
  cache_write?: number;
}

export interface ModelProviderConfig {
  base_url?: string;
  api_key_env?: string;
}

export interface ModelProxyConfig {
  enabled?: boolean;
  providers?: { anthropic?: ModelProviderConfig; openai?: ModelProviderConfig; gemini?: ModelProviderConfig };
  pricing?: Record<string, ModelPriceConfig>;
}
