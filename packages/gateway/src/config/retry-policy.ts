// The `retry:` block as the gateway uses it: how often and how long a failed step (a delivery, an action, a
// lifecycle webhook) is tried again. One policy read from the config, one backoff for every retrying part.
import type { HookwiseConfig } from './schema';

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Exponential backoff with jitter: base * 2^(attempt-1), capped, then scaled into [50%, 100%]. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp * (0.5 + random() * 0.5));
}

/** The config's `retry:` block in milliseconds. */
export function retryPolicyOf(config: Pick<HookwiseConfig, 'retry'>): RetryPolicy {
  return {
    maxAttempts: config.retry.max_attempts,
    baseDelayMs: config.retry.base_delay_seconds * 1000,
    maxDelayMs: config.retry.max_delay_seconds * 1000,
  };
}
