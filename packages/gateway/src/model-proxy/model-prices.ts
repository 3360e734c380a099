// What a model call costs: the built-in table of list prices (US dollars per million tokens, as the providers publish
// them) and `agent.model_proxy.pricing` over it. A model name matches its own row, or its row plus a release date
// (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`). Never a shorter row it merely starts with: `claude-opus-4-6`
// is not `claude-opus-4` (a third of its price), so a model the table does not know is unpriced (counted in tokens,
// warned about once) rather than priced wrong. Prices change: check them against the providers' pages and override
// in the config. Anthropic's rows: platform.claude.com/docs/en/about-claude/pricing, "Model pricing" (cache write:
// 5-minute writes), as of 2026-11; Haiku 5.5 at its price for prompts up to 100,000 tokens. Google's rows:
// ai.google.dev/gemini-api/docs/pricing, paid tier, text input, as of 2026-07: the Pro models at their price for
// prompts up to 200,000 tokens (longer ones cost more: set `pricing` when a route's prompts are that long), the
// cache price being the cached-token read (storage is billed by the hour, not per call).
import type { ModelPriceConfig } from '../config/model-proxy-schema';

/** USD per million tokens; cache_read and cache_write default to the input price. */
export type ModelPrice = ModelPriceConfig;

const OPUS_4_5_ON: ModelPrice = { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 };
const OPUS_4: ModelPrice = { input: 15, output: 75, cache_read: 1.5, cache_write: 18.75 };
const SONNET_4: ModelPrice = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 };

export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  // Anthropic.
  'claude-opus-5-5': { input: 4, output: 20, cache_read: 0.2, cache_write: 5 },
  'claude-opus-5': OPUS_4_5_ON,
  'claude-opus-4-8': OPUS_4_5_ON,
  'claude-opus-4-7': OPUS_4_5_ON,
  'claude-opus-4-6': OPUS_4_5_ON,
  'claude-opus-4-5': OPUS_4_5_ON,
  'claude-opus-4-1': OPUS_4,
  'claude-opus-4': OPUS_4,
  'claude-sonnet-5-5': { input: 2, output: 10, cache_read: 0.1, cache_write: 2.5 },
  'claude-sonnet-5': { input: 2, output: 10, cache_read: 0.2, cache_write: 2.5 },
  'claude-sonnet-4-6': SONNET_4,
  'claude-sonnet-4-5': SONNET_4,
  'claude-sonnet-4': SONNET_4,
  'claude-3-7-sonnet': SONNET_4,
  'claude-haiku-5-5': { input: 0.1, output: 0.5, cache_read: 0.01, cache_write: 0.125 },
  'claude-haiku-4-5': { input: 1, output: 5, cache_read: 0.1, cache_write: 1.25 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cache_read: 0.08, cache_write: 1 },
  // OpenAI (cached input is read at the cache price; writing the cache costs nothing extra).
  'gpt-5': { input: 1.25, output: 10, cache_read: 0.125 },
  'gpt-5-codex': { input: 1.25, output: 10, cache_read: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cache_read: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cache_read: 0.005 },
  'gpt-4.1': { input: 2, output: 8, cache_read: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cache_read: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cache_read: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cache_read: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cache_read: 0.075 },
  o3: { input: 2, output: 8, cache_read: 0.5 },
  'o4-mini': { input: 1.1, output: 4.4, cache_read: 0.275 },
  // Google (output includes thinking tokens).
  'gemini-3.1-pro-preview': { input: 2, output: 12, cache_read: 0.2 },
  'gemini-3-pro-preview': { input: 2, output: 12, cache_read: 0.2 },
  'gemini-3-flash-preview': { input: 0.5, output: 3, cache_read: 0.05 },
  'gemini-3.1-flash-lite': { input: 0.25, output: 1.5, cache_read: 0.025 },
  'gemini-3.1-flash-lite-preview': { input: 0.25, output: 1.5, cache_read: 0.025 },
  'gemini-2.5-pro': { input: 1.25, output: 10, cache_read: 0.125 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cache_read: 0.03 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cache_read: 0.01 },
  'gemini-2.0-flash': { input: 0.1, output: 0.4, cache_read: 0.025 },
};

/** A release date after a model's name: Anthropic's `-20250929`, OpenAI's `-2024-08-06`, or `-latest`. */
const RELEASE_SUFFIX = /^-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

/** Tokens of one model call as the proxy read them; `input` counts every input token, cached ones included. */
export interface CallTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export class ModelPrices {
  private readonly table: Record<string, ModelPrice>;
  private readonly names: string[];

  constructor(overrides: Record<string, ModelPrice> = {}) {
    this.table = { ...MODEL_PRICES, ...overrides };
    this.names = Object.keys(this.table);
  }

  /** The price of a model, by its name or its name and a release date; undefined for a model the table does not know. */
  priceOf(model: string | undefined): ModelPrice | undefined {
    if (!model) return undefined;
    const name = model.toLowerCase();
    const found = this.names.find((row) => {
      const key = row.toLowerCase();
      return name === key || (name.startsWith(key) && RELEASE_SUFFIX.test(name.slice(key.length)));
    });
    return found === undefined ? undefined : this.table[found];
  }

  /** US dollars of one call; undefined when its model has no price. */
  costOf(model: string | undefined, tokens: CallTokens): number | undefined {
    const price = this.priceOf(model);
    if (!price) return undefined;
    const uncached = Math.max(0, tokens.input - tokens.cacheRead - tokens.cacheWrite);
    const dollars =
      uncached * price.input +
      tokens.cacheRead * (price.cache_read ?? price.input) +
      tokens.cacheWrite * (price.cache_write ?? price.input) +
      tokens.output * price.output;
    return dollars / 1_000_000;
  }
}
