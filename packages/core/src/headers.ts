// Reading request headers the way Node hands them over: lower-case names, string or string[] values.
import type { HeaderMap } from './contracts';

/** The first value of a header, or undefined when it is absent or empty. */
export function headerValue(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  if (Array.isArray(value)) return value[0];
  return value === undefined || value === '' ? undefined : value;
}
