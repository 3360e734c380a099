// Token usage as every runner reports it (AgentResult.usage): read from each provider's wire format and summed over a run.
import type { AgentResult } from '@hookwise/core';

export type TokenUsage = NonNullable<AgentResult['usage']>;

const FIELDS = ['inputTokens', 'outputTokens', 'cachedInputTokens', 'cacheWriteTokens'] as const;

/** Adds two usages field by field; a field absent from both stays absent (unknown is not zero). */
export function addUsage(a: TokenUsage | undefined, b: TokenUsage | undefined): TokenUsage | undefined {
  if (!a) return b && { ...b };
  if (!b) return { ...a };
  const sum: TokenUsage = {};
  for (const field of FIELDS) {
    if (a[field] !== undefined || b[field] !== undefined) sum[field] = (a[field] ?? 0) + (b[field] ?? 0);
  }
  return sum;
}

/** A count from a wire format: a finite, non-negative number, else undefined (servers send nulls and strings). */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Sums counts that may each be missing; undefined when all are. */
export function sumCounts(...values: unknown[]): number | undefined {
  let total: number | undefined;
  for (const value of values) {
    const n = tokenCount(value);
    if (n !== undefined) total = (total ?? 0) + n;
  }
  return total;
}

/** Drops absent fields; undefined when nothing is known, so that a result without usage stays without. */
export function usageOrUndefined(usage: TokenUsage): TokenUsage | undefined {
  const known: TokenUsage = {};
  for (const field of FIELDS) if (usage[field] !== undefined) known[field] = usage[field];
  return Object.keys(known).length ? known : undefined;
}

/**
 * An OpenAI-compatible `usage` object (Chat Completions): prompt_tokens includes cached tokens, which
 * prompt_tokens_details.cached_tokens counts (servers that do not cache leave it out).
 */
export function usageFromOpenAI(usage: unknown): TokenUsage | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const u = usage as { prompt_tokens?: unknown; completion_tokens?: unknown; prompt_tokens_details?: { cached_tokens?: unknown } | null };
  return usageOrUndefined({
    inputTokens: tokenCount(u.prompt_tokens),
    outputTokens: tokenCount(u.completion_tokens),
    cachedInputTokens: tokenCount(u.prompt_tokens_details?.cached_tokens),
  });
}

/**
 * An Anthropic `usage` object (Messages API, and Claude Code's result): input_tokens does not include the cache
 * reads and writes, so they are added to make inputTokens every input token.
 */
export function usageFromAnthropic(usage: unknown): TokenUsage | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const u = usage as { input_tokens?: unknown; output_tokens?: unknown; cache_read_input_tokens?: unknown; cache_creation_input_tokens?: unknown };
  return usageOrUndefined({
    inputTokens: sumCounts(u.input_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens),
    outputTokens: tokenCount(u.output_tokens),
    cachedInputTokens: tokenCount(u.cache_read_input_tokens),
    cacheWriteTokens: tokenCount(u.cache_creation_input_tokens),
  });
}
