// Reading request headers the way Node hands them over: lower-case names, string or string[] values.
import type { HeaderMap } from './contracts';

/** The first value of a header, or undefined when it is absent or empty. */
export function headerValue(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  if (Array.isArray(value)) return value[0];
  return value === undefined || value === '' ? undefined : value;
}

/** The value of the first of `names` that is present (a sender's real header name, then its aliases). */
export function firstHeaderValue(headers: HeaderMap, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = headerValue(headers, name);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** A header's first value trimmed; undefined when absent or blank (signature and timestamp headers). */
export function headerText(headers: HeaderMap, name: string): string | undefined {
  const value = headerValue(headers, name)?.trim();
  return value ? value : undefined;
}
