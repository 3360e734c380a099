// What a model call costs: the built-in table of list prices (US dollars per million tokens, as the providers publish
// them) and `agent.model_proxy.pricing` over it. A model name matches its own row or the longest row it starts with,
// so a dated release (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`) finds its family's price. Prices change:
// check them against the providers' pages and override in the config.
import type { ModelPriceConfig } from '../config/model-proxy-schema';

/** USD per million tokens; cache_read and cache_write default to the input price. */
export type ModelPrice = ModelPriceConfig;

export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  // Anthropic (cache write: 5-minute cache writes).
  'claude-opus-4-5': { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 },
  'claude-opus-4-1': { input: 15, output: 75, cache_read: 1.5, cache_write: 18.75 },
  'claude-opus-4': { input: 15, output: 75, cache_read: 1.5, cache_write: 18.75 },
  'claude-sonnet-4-5': { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
  'claude-sonnet-4': { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
  'claude-3-7-sonnet': { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
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
};

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
    // Longest first: `gpt-4o-mini-2024-07-18` is gpt-4o-mini, not gpt-4o.
    this.names = Object.keys(this.table).sort((a, b) => b.length - a.length);
  }

  /** The price of a model, by its name or the longest row it starts with; undefined for an unknown model. */
  priceOf(model: string | undefined): ModelPrice | undefined {
    if (!model) return undefined;
    const name = model.toLowerCase();
    const found = this.names.find((row) => name === row.toLowerCase() || name.startsWith(`${row.toLowerCase()}-`));
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
