// Reading a filter's dot path out of a payload, and showing the value found in a log line: own properties only, so
// a payload's `__proto__` or `constructor` keys are never followed; a missing step is MISSING, not undefined.
/** Path segments that name prototypes: a payload may hold them as own keys (JSON.parse does), filters never look them up. */
export const PROTOTYPE_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

export const MISSING = Symbol('missing');
/** How much of a payload value a log line shows. */
export const VALUE_PREVIEW = 60;

/** The value at a dot path: own properties only, numeric segments index arrays; MISSING when any step is absent. */
export function valueAt(payload: unknown, path: string): unknown {
  let current: unknown = payload;
  for (const segment of path.split('.')) {
    if (current === null || typeof current !== 'object' || PROTOTYPE_KEYS.has(segment)) return MISSING;
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment) || Number(segment) >= current.length) return MISSING;
      current = current[Number(segment)];
    } else {
      if (!Object.prototype.hasOwnProperty.call(current, segment)) return MISSING;
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return current;
}

/** A payload value as a log line shows it: scalars as JSON (strings cut), objects and lists only by kind. */
export function describe(value: unknown): string {
  if (value === MISSING) return 'missing';
  if (typeof value === 'string') return JSON.stringify(value.length > VALUE_PREVIEW ? `${value.slice(0, VALUE_PREVIEW)}…` : value);
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (value !== null && typeof value === 'object') return 'an object';
  return String(value);
}
