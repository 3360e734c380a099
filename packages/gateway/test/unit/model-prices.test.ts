// The model proxy's price table: a model is priced by its own row or its row and a release date, never by a shorter
// row it starts with. `claude-opus-4-6` was priced as `claude-opus-4` ($15 / $75 per million tokens for a model
// Anthropic lists at $5 / $25), so usd caps fired at a third of the money; now it has its own row, and a model the
// table does not know is unpriced rather than priced wrong.
import { ModelPrices } from '../../src/model-proxy/model-prices';

const prices = new ModelPrices();

it('prices a model by its own row or its row with a release date', () => {
  expect(prices.priceOf('claude-sonnet-4-5')).toMatchObject({ input: 3, output: 15 });
  expect(prices.priceOf('claude-sonnet-4-5-20250929')).toMatchObject({ input: 3, output: 15 });
  expect(prices.priceOf('gpt-4o-2024-08-06')).toMatchObject({ input: 2.5, output: 10 });
  expect(prices.priceOf('gpt-4o-mini-2024-07-18')).toMatchObject({ input: 0.15 });
  expect(prices.priceOf('claude-3-5-haiku-latest')).toMatchObject({ input: 0.8 });
  expect(prices.priceOf('Claude-Haiku-4-5')).toMatchObject({ input: 1 });
});

it('never prices a newer model by an older row it starts with', () => {
  expect(prices.priceOf('claude-opus-4-6')).toMatchObject({ input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 });
  expect(prices.priceOf('claude-opus-4-7-20260301')).toMatchObject({ input: 5, output: 25 });
  expect(prices.priceOf('claude-opus-4')).toMatchObject({ input: 15, output: 75 });
  // A model the table does not know (a future one, a fine-tune): unpriced, not its family's guess.
  expect(prices.priceOf('claude-opus-4-9')).toBeUndefined();
  expect(prices.priceOf('gpt-4o-mini-tts')).toBeUndefined();
  expect(prices.priceOf('gpt-5-pro')).toBeUndefined();
});

it('reads cache reads and writes at their own prices, and config rows over the built-in ones', () => {
  const tokens = { input: 1_000_000, output: 100_000, cacheRead: 600_000, cacheWrite: 100_000 };
  // 300k uncached at $5, 600k read at $0.50, 100k written at $6.25, 100k out at $25.
  expect(prices.costOf('claude-opus-4-5', tokens)).toBeCloseTo(1.5 + 0.3 + 0.625 + 2.5, 6);
  const local = new ModelPrices({ 'claude-opus-4-5': { input: 1, output: 1 }, 'llama3.1': { input: 0, output: 0 } });
  expect(local.costOf('claude-opus-4-5', tokens)).toBeCloseTo(1.1, 6);
  expect(local.costOf('llama3.1', tokens)).toBe(0);
});

it('prices Gemini models by their own rows: a Flash-Lite is not its Flash, a preview not its release', () => {
  expect(prices.priceOf('gemini-2.5-flash')).toMatchObject({ input: 0.3, output: 2.5, cache_read: 0.03 });
  expect(prices.priceOf('gemini-2.5-flash-lite')).toMatchObject({ input: 0.1, output: 0.4 });
  expect(prices.priceOf('gemini-3.1-pro-preview')).toMatchObject({ input: 2, output: 12 });
  expect(prices.priceOf('gemini-3.1-flash-lite-preview')).toMatchObject({ input: 0.25 });
  expect(prices.priceOf('gemini-2.5-flash-image')).toBeUndefined();
  // 1,000 prompt tokens of which 400 cached, 300 out (thinking included) on 2.5 Flash.
  expect(prices.costOf('gemini-2.5-flash', { input: 1000, output: 300, cacheRead: 400, cacheWrite: 0 })).toBeCloseTo(
    (600 * 0.3 + 400 * 0.03 + 300 * 2.5) / 1e6,
    9,
  );
});
