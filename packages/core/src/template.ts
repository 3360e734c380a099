// Renders `{dot.notation}` templates against a webhook payload (SPEC 2.6, DESIGN 4).

export const RAW_DUMP_LIMIT = 4000;
export const NESTED_VALUE_LIMIT = 2000;

const PLACEHOLDER = /\{([A-Za-z0-9_$@-]+(?:\.[A-Za-z0-9_$@-]+)*)\}/g;
const MISSING = Symbol('missing');

function truncate(text: string, limit: number): string {
  return text.length > limit ? text.slice(0, limit) : text;
}

function toJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The whole payload as indented JSON, cut at 4000 characters: `{__raw__}` and the default prompt. */
export function dumpPayload(payload: unknown): string {
  return truncate(toJson(payload), RAW_DUMP_LIMIT);
}

/** Walks own properties only; numeric segments index arrays. Never touches prototypes. */
function lookupPath(payload: unknown, path: string): unknown {
  let current: unknown = payload;
  for (const segment of path.split('.')) {
    if (current === null || typeof current !== 'object') return MISSING;
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment)) return MISSING;
      const index = Number(segment);
      if (index >= current.length) return MISSING;
      current = current[index];
    } else {
      if (!Object.prototype.hasOwnProperty.call(current, segment)) return MISSING;
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return current;
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null) return 'null';
  if (typeof value === 'object') return truncate(toJson(value), NESTED_VALUE_LIMIT);
  return String(value);
}

/**
 * Names the gateway adds beside the payload, written `{__name__}` so they never clash with a payload's keys: a
 * coalesced job's `__events__` (every payload, mode `all`) and `__event_count__`. A path whose first segment is
 * one of them is looked up in `vars`, any other in the payload.
 */
export type TemplateVars = Record<string, unknown>;

function lookup(payload: unknown, path: string, vars: TemplateVars | undefined): unknown {
  if (vars !== undefined) {
    const dot = path.indexOf('.');
    const head = dot === -1 ? path : path.slice(0, dot);
    if (Object.prototype.hasOwnProperty.call(vars, head)) return dot === -1 ? vars[head] : lookupPath(vars[head], path.slice(dot + 1));
  }
  return lookupPath(payload, path);
}

/**
 * Replaces each `{a.b.c}` with the payload value at that path in one pass: text that comes from the payload
 * is never expanded again. Missing keys keep their literal placeholder. `{__raw__}` is the whole payload.
 */
export function renderTemplate(template: string, payload: unknown, vars?: TemplateVars): string {
  return template.replace(PLACEHOLDER, (whole, path: string) => {
    if (path === '__raw__') return dumpPayload(payload);
    const value = lookup(payload, path, vars);
    return value === MISSING || value === undefined ? whole : formatValue(value);
  });
}

/**
 * The placeholders of `template` that match nothing in the payload (or vars), each once, in order: they stay
 * literal in the rendered text, and the debug log, `deliveries show` and `webhook test` list them. A pass of its
 * own, so that renderTemplate, which every job runs, does no extra work.
 */
export function unresolvedPlaceholders(template: string | undefined, payload: unknown, vars?: TemplateVars): string[] {
  if (!template) return [];
  const missing = new Set<string>();
  for (const [whole, path] of template.matchAll(PLACEHOLDER)) {
    if (path === '__raw__') continue;
    const value = lookup(payload, path, vars);
    if (value === MISSING || value === undefined) missing.add(whole);
  }
  return [...missing];
}

/**
 * The prompt for a route: its template rendered, or the payload dump when the route has no prompt (with vars
 * holding `__events__`, the dump of every payload).
 */
export function renderPrompt(template: string | undefined, payload: unknown, vars?: TemplateVars): string {
  if (template === undefined || template === '') return dumpPayload(vars?.__events__ !== undefined ? vars.__events__ : payload);
  return renderTemplate(template, payload, vars);
}

/** Renders every value of a `deliver_extra` map (with `vars` as renderTemplate takes them). */
export function renderExtra(extra: Record<string, string> | undefined, payload: unknown, vars?: TemplateVars): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(extra ?? {})) out[key] = renderTemplate(String(value), payload, vars);
  return out;
}
