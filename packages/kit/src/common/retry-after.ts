// How long a throttled or overloaded server asks us to wait, read from its answer's headers.

/**
 * Seconds from `retry-after-ms` (sent by OpenAI-style servers, more precise) or `Retry-After` (delta-seconds
 * or an HTTP date; a date in the past means 0); undefined when neither is present or readable.
 */
export function retryAfterFromHeaders(headers: Headers, now: () => number = Date.now): number | undefined {
  const ms = nonNegative(headers.get('retry-after-ms'));
  if (ms !== undefined) return ms / 1000;
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  // A number is never read as a date: Date.parse('-5') is a valid year, not a moment to wait for.
  if (Number.isFinite(Number(value))) return nonNegative(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now()) / 1000);
}

function nonNegative(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}
