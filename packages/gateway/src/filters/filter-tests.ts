// What filters see of the request besides the payload (`headers.<name>`, `event`), and the declarative tests added
// to the original six (filters.ts): `contains`, `missing`, `not: {test}` and `in_file: <path>` (docs/filters.md).
// Kept apart from filters.ts so that the expression evaluation there can change without touching these tests.
import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { errorMessage, type HeaderMap } from '@hookwise/core';
import type { FilterConfig, FilterTest } from '../config/schema';
import { keepableHeaders } from '../observe/header-redaction';

/** The request as a filter sees it: header names lower-case (secret-looking values replaced), the event type. */
export interface RequestView {
  headers: Record<string, string>;
  event: string;
}

/** Built only for routes whose filter names `headers` or `event` (CompiledFilter.namesRequest). */
export function requestViewOf(headers: HeaderMap, event: string): RequestView {
  // Signature and token headers keep their name but not their value, so a failing test's log line never shows one.
  return { headers: Object.fromEntries(keepableHeaders(headers)), event };
}

const REQUEST_PATH = /^(headers|event)(\.|$)/;
/** `headers` or `event` as a name in a JSONata expression (a field, not inside a string literal or a $variable). */
const REQUEST_NAME = /(^|[^\w$"'`])(headers|event)\b/;

function testNamesRequest(test: FilterTest | undefined): boolean {
  if (test === null || typeof test !== 'object') return false;
  if (typeof test.path === 'string' && REQUEST_PATH.test(test.path.trim())) return true;
  if (typeof test.expression === 'string' && REQUEST_NAME.test(test.expression)) return true;
  return testNamesRequest(test.not);
}

/** Whether a filter reads `headers.*` or `event`: only then does the pipeline build the request view. */
export function filterNamesRequest(filter: FilterConfig): boolean {
  const conditions = Array.isArray(filter) ? filter : [filter];
  return conditions.some((condition) =>
    condition !== null && typeof condition === 'object' && 'any' in condition && Array.isArray(condition.any)
      ? condition.any.some(testNamesRequest)
      : testNamesRequest(condition as FilterTest),
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The payload with `headers` and `event` beside its own keys. A payload key of the same name wins (Slack's
 * `event` object, a sender's own `headers` field), so that no existing filter changes meaning.
 */
export function withRequest(payload: unknown, request: RequestView): unknown {
  if (!isPlainObject(payload)) return payload;
  return Object.assign({ headers: request.headers, event: request.event }, payload);
}

/** The same view as JSON text, spliced in front of the payload's own text (JSON.parse keeps the last of two equal keys). */
export function withRequestJson(json: string, request: RequestView): string {
  const body = json.trimStart();
  if (!body.startsWith('{')) return json;
  const head = JSON.stringify({ headers: request.headers, event: request.event });
  const rest = body.slice(1).trimStart();
  return rest.startsWith('}') ? `${head.slice(0, -1)}${rest}` : `${head.slice(0, -1)},${rest}`;
}

/** The operators defined here, beside filters.ts's OPERATORS. */
export const EXTRA_OPERATORS = ['contains', 'missing', 'in_file'] as const;
export type ExtraOperator = (typeof EXTRA_OPERATORS)[number];

export function extraOperatorsOf(test: FilterTest): ExtraOperator[] {
  return EXTRA_OPERATORS.filter((op) => Object.prototype.hasOwnProperty.call(test, op));
}

export function isExtraOperator(op: string): op is ExtraOperator {
  return (EXTRA_OPERATORS as readonly string[]).includes(op);
}

/** Reads a value at a path (filters.ts's valueAt) and names a missing one with the `missing` marker it uses. */
export interface PathReader {
  valueAt(payload: unknown, path: string): unknown;
  missing: unknown;
  describe(value: unknown): string;
}

type Check = (payload: unknown) => string | undefined;
const isScalar = (value: unknown): boolean => value === null || ['string', 'number', 'boolean'].includes(typeof value);

/** One of EXTRA_OPERATORS compiled: its problems, or its check. `baseDir` resolves a relative in_file path. */
export function compileExtraTest(
  path: string,
  op: ExtraOperator,
  test: FilterTest,
  where: string,
  reader: PathReader,
  baseDir: string,
): { problems: string[]; check?: Check } {
  const { valueAt, missing, describe } = reader;
  switch (op) {
    case 'contains': {
      const wanted = test.contains;
      if (!isScalar(wanted)) return { problems: [`${where}: contains takes a string, number, boolean or null, e.g. contains: "[skip ci]"`] };
      return {
        problems: [],
        check: (payload) => {
          const value = valueAt(payload, path);
          if (typeof value === 'string' && typeof wanted === 'string')
            return value.includes(wanted) ? undefined : `${path} is ${describe(value)}, which does not contain ${describe(wanted)}`;
          if (Array.isArray(value)) return value.includes(wanted) ? undefined : `${path} is ${describe(value)} without ${describe(wanted)}`;
          return `${path} is ${describe(value)}, not a string or list that could contain ${describe(wanted)}`;
        },
      };
    }
    case 'missing': {
      if (typeof test.missing !== 'boolean') return { problems: [`${where}: missing takes true or false`] };
      const wantMissing = test.missing;
      return {
        problems: [],
        check: (payload) => {
          const absent = valueAt(payload, path) === missing;
          if (absent === wantMissing) return undefined;
          return absent ? `${path} is missing` : `${path} is present, and the filter wants it missing`;
        },
      };
    }
    case 'in_file': {
      if (typeof test.in_file !== 'string' || test.in_file.trim() === '')
        return { problems: [`${where}: in_file takes a file path (relative to the config dir), e.g. in_file: allowed-senders.txt`] };
      const file = isAbsolute(test.in_file) ? test.in_file : resolve(baseDir, test.in_file);
      let list: WatchedList;
      try {
        list = watchedList(file);
      } catch (err) {
        return {
          problems: [
            `${where}: in_file '${test.in_file}' cannot be read (${errorMessage(err)}); create ${file} with one value per line, or fix the path (relative to the config dir)`,
          ],
        };
      }
      const shown = JSON.stringify(test.in_file);
      return {
        problems: [],
        check: (payload) => {
          const value = valueAt(payload, path);
          const values = list.values;
          const found = Array.isArray(value) ? value.some((item) => isScalar(item) && values.has(String(item))) : isScalar(value) && values.has(String(value));
          return found ? undefined : `${path} is ${describe(value)}, not listed in ${shown}`;
        },
      };
    }
  }
}

/** The path a `not` test's inner test reads: its own, else the outer test's. */
export function innerOfNot(test: FilterTest, where: string): { problems: string[]; inner?: FilterTest } {
  const inner = test.not;
  const others = Object.keys(test).filter((key) => key !== 'not' && key !== 'path');
  if (others.length)
    return { problems: [`${where}: not stands alone (beside an optional path); move ${others.join(', ')} into its test or a test of its own`] };
  if (inner === null || typeof inner !== 'object' || Array.isArray(inner))
    return { problems: [`${where}: not takes one test, e.g. {not: {path: sender.login, in_file: bots.txt}}`] };
  if (Object.prototype.hasOwnProperty.call(inner, 'expression'))
    return { problems: [`${where}: not takes a declarative test; negate an expression inside it instead, e.g. expression: "$not(pull_request.draft)"`] };
  if (test.path !== undefined && inner.path !== undefined)
    return { problems: [`${where}: not has a path outside and inside; keep one, e.g. {path: action, not: {equals: closed}}`] };
  return { problems: [], inner: test.path !== undefined ? { ...inner, path: test.path } : inner };
}

/** A `not` test's check from its inner test's. */
export function negated(check: Check, inner: FilterTest): Check {
  const shown = `${String(inner.path)} ${Object.keys(inner)
    .filter((key) => key !== 'path')
    .join(', ')}`;
  return (payload) => (check(payload) === undefined ? `${shown} passed, and the filter wants it not to` : undefined);
}

// ---- in_file lists: read once when first compiled, re-read when the file changes ----

/** How often a list file's mtime is polled (watchFile survives editors that replace the file, unlike fs.watch). */
export const IN_FILE_POLL_MS = 500;

interface WatchedList {
  values: Set<string>;
}

const lists = new Map<string, WatchedList>();

function parseList(text: string): Set<string> {
  const values = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    const value = line.trim();
    if (value !== '' && !value.startsWith('#')) values.add(value);
  }
  return values;
}

/** One list per file, shared by every route that names it; throws when the file cannot be read the first time. */
function watchedList(file: string): WatchedList {
  let list = lists.get(file);
  if (list) return list;
  list = { values: parseList(readFileSync(file, 'utf8')) };
  const made = list;
  lists.set(file, made);
  // Not persistent: the poll never keeps a process alive. A file that cannot be read after a change keeps the
  // last list (an editor's half-written save or a removed file must not let every value through or none).
  watchFile(file, { interval: IN_FILE_POLL_MS, persistent: false }, (current: Stats, previous: Stats) => {
    if (current.mtimeMs === previous.mtimeMs && current.size === previous.size) return;
    try {
      made.values = parseList(readFileSync(file, 'utf8'));
    } catch {
      /* keep the last list */
    }
  });
  return made;
}

/** Stops polling every list file (tests, and an embedding that closes its gateways). */
export function closeInFileLists(): void {
  for (const file of lists.keys()) unwatchFile(file);
  lists.clear();
}
