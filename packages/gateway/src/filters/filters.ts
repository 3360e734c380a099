// Route filters (`filter:` on routes and subscriptions, docs/filters.md): compiled once per route, evaluated per
// event after the event-type check. Declarative tests run synchronously; only JSONata expressions are awaited,
// and they are evaluated in worker threads with a hard deadline and a heap limit (expression-pool.ts).
import jsonata from 'jsonata';
import { errorMessage } from '@hookwise/core';
import type { FilterCondition, FilterConfig, FilterTest } from '../config/schema';
import { ExpressionPool, ExpressionUnavailable, type ExpressionOutcome, type ExpressionResult } from './expression-pool';
import * as extra from './filter-tests';
import { MISSING, PROTOTYPE_KEYS, VALUE_PREVIEW, describe, valueAt } from './payload-path';

export { valueAt } from './payload-path';

/** What a filter made of an event: passed, or the first test that failed, said for a log line (never the payload). */
export type FilterVerdict = { passed: true } | FilterFailure;

export interface FilterFailure {
  passed: false;
  /** Which test failed and on what value, e.g. `action is "labeled", not one of "opened", "synchronize"`. */
  reason: string;
  /** Set when an expression threw (or the filter does not compile): worth a warning, not just an info line. */
  error?: string;
  /**
   * What dropped the event when not the filter: its `transform:` (jobs/transform.ts) gave nothing or the silent
   * marker, the source said it is the gateway's own message (`own_message`, Source.ownMessage), or its sender is
   * not in the route's `allow_from` (`not_allowed`, senders/sender-check.ts).
   */
  by?: 'transform' | 'own_message' | 'not_allowed';
}

/**
 * A route's filter, compiled: `test` returns a promise only when an expression has to be evaluated. `json` is the
 * payload's JSON text when the caller has it (the expression workers then get it without serialising it again).
 */
export interface CompiledFilter {
  test(payload: unknown, json?: string, request?: extra.RequestView): FilterVerdict | Promise<FilterVerdict>;
  /** The filter reads `headers.*` or `event`: pass `request` (requestViewOf), built only for such routes. */
  namesRequest?: boolean;
}

/**
 * JSONata's own guardrails: wall time (checked between evaluation steps only), nesting depth, sequence length.
 * The hard bounds (deadline per event, heap, concurrency) are the pool's, in expression-pool.ts.
 */
export const EXPRESSION_TIMEOUT_MS = 250;
export const EXPRESSION_MAX_DEPTH = 500;
export const EXPRESSION_MAX_SEQUENCE = 100_000;

/** The operators of a declarative test; exactly one of them (or `expression` alone) makes a test. */
const OPERATORS = ['equals', 'not_equals', 'in', 'not_in', 'matches', 'exists'] as const;
type Operator = (typeof OPERATORS)[number];

const PASSED: FilterVerdict = { passed: true };

/** JSONata throws plain objects with code, position and message, not Errors. */
function jsonataMessage(err: unknown): string {
  const message = (err as { message?: unknown })?.message;
  return typeof message === 'string' ? message : errorMessage(err);
}

const isScalar = (value: unknown): boolean => value === null || ['string', 'number', 'boolean'].includes(typeof value);

/** The test's operators present, in the order OPERATORS lists them. */
function operatorsOf(test: FilterTest): Operator[] {
  return OPERATORS.filter((op) => Object.prototype.hasOwnProperty.call(test, op));
}

type Check = (payload: unknown) => string | undefined;

/** One declarative test as a function returning why it failed (undefined: passed). */
function declarativeCheck(path: string, op: Operator, test: FilterTest, regex: RegExp | undefined): Check {
  switch (op) {
    case 'equals':
      return (payload) => {
        const value = valueAt(payload, path);
        return value === test.equals ? undefined : `${path} is ${describe(value)}, not ${describe(test.equals)}`;
      };
    case 'not_equals':
      return (payload) => (valueAt(payload, path) === test.not_equals ? `${path} is ${describe(test.not_equals)}, which the filter excludes` : undefined);
    case 'in': {
      const allowed = test.in ?? [];
      return (payload) => {
        const value = valueAt(payload, path);
        return allowed.includes(value) ? undefined : `${path} is ${describe(value)}, not one of ${allowed.map(describe).join(', ')}`;
      };
    }
    case 'not_in': {
      const excluded = test.not_in ?? [];
      return (payload) => {
        const value = valueAt(payload, path);
        return excluded.includes(value) ? `${path} is ${describe(value)}, one of the excluded ${excluded.map(describe).join(', ')}` : undefined;
      };
    }
    case 'matches':
      return (payload) => {
        const value = valueAt(payload, path);
        if (typeof value !== 'string') return `${path} is ${describe(value)}, not a string to match /${test.matches}/`;
        return (regex as RegExp).test(value) ? undefined : `${path} is ${describe(value)}, which does not match /${test.matches}/`;
      };
    case 'exists':
      return (payload) => {
        const present = valueAt(payload, path) !== MISSING;
        if (present === test.exists) return undefined;
        return present ? `${path} is present, and the filter wants it missing` : `${path} is missing`;
      };
  }
}

/** A JSONata expression that parsed; the workers compile and evaluate it. */
interface Expression {
  text: string;
}

/** Evaluates one expression over the event's payload (which the pool sends to the worker once per event). */
type Evaluate = (text: string) => Promise<ExpressionOutcome>;

const pool = new ExpressionPool({
  bounds: { timeout: EXPRESSION_TIMEOUT_MS, stack: EXPRESSION_MAX_DEPTH, sequence: EXPRESSION_MAX_SEQUENCE },
  preview: VALUE_PREVIEW,
});

function describeResult(result: ExpressionResult): string {
  switch (result.kind) {
    case 'nothing':
      return 'nothing';
    case 'list':
      return `a list of ${result.length}`;
    case 'object':
      return 'an object';
    case 'value':
      return describe(result.value);
  }
}

function expressionShown(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > 80 ? `${flat.slice(0, 80)}…` : flat);
}

/** Why an expression did not pass (undefined: it gave true); a throwing one fails, with the error for a warning. */
async function expressionCheck(expression: Expression, evaluate: Evaluate): Promise<{ reason: string; error?: string } | undefined> {
  let outcome: ExpressionOutcome;
  try {
    outcome = await evaluate(expression.text);
  } catch (err) {
    return unavailable(expression, err);
  }
  if ('error' in outcome) {
    const { code, position, message } = outcome.error;
    const detail = `${code ? `${code} ` : ''}${message.slice(0, 160)}${position !== undefined ? ` (at position ${position})` : ''}`;
    return { reason: `expression ${expressionShown(expression.text)} failed: ${detail}`, error: detail };
  }
  const { result } = outcome;
  if (result.kind === 'value' && result.value === true) return undefined;
  return { reason: `expression ${expressionShown(expression.text)} gave ${describeResult(result)}, not true` };
}

/** An evaluation the pool could not finish (deadline, heap, busy): not passed, with a warning. */
function unavailable(expression: Expression, err: unknown): { reason: string; error: string } {
  if (!(err instanceof ExpressionUnavailable)) throw err;
  return { reason: `expression ${expressionShown(expression.text)} ${err.message}`, error: err.message };
}

/** One condition: declarative checks (run synchronously) and expressions (awaited only when needed). */
interface CompiledCondition {
  checks: Check[];
  expressions: Expression[];
  /** `{any: [...]}`: one passing test suffices. */
  any: boolean;
}

/** Problems of one test (where: e.g. "route 'prs' filter[1].any[0]"), and the compiled test when there are none. */
function compileTest(test: FilterTest, where: string, baseDir = process.cwd()): { problems: string[]; check?: Check; expression?: Expression } {
  if (test === null || typeof test !== 'object' || Array.isArray(test))
    return { problems: [`${where}: a test is an object, e.g. {path: action, equals: opened}`] };
  if (Object.prototype.hasOwnProperty.call(test, 'not')) {
    const { problems, inner } = extra.innerOfNot(test, where);
    if (!inner) return { problems };
    const made = compileTest(inner, `${where}.not`, baseDir);
    return made.check ? { problems: [], check: extra.negated(made.check, inner) } : { problems: made.problems };
  }
  const ops: string[] = [...operatorsOf(test), ...extra.extraOperatorsOf(test)];
  const hasExpression = Object.prototype.hasOwnProperty.call(test, 'expression');
  if (hasExpression) {
    if (test.path !== undefined || ops.length)
      return {
        problems: [
          `${where}: an expression stands alone; remove ${[test.path !== undefined ? 'path' : '', ...ops].filter(Boolean).join(', ')} (or make it a test of its own)`,
        ],
      };
    if (typeof test.expression !== 'string' || test.expression.trim() === '')
      return { problems: [`${where}: expression is empty; write a JSONata expression, e.g. expression: "pull_request.draft = false"`] };
    try {
      // Parsed here for the startup problems only; the workers compile it again for evaluation.
      jsonata(test.expression);
      return { problems: [], expression: { text: test.expression } };
    } catch (err) {
      const { position, code } = err as { position?: number; code?: string };
      return {
        problems: [
          `${where}: the JSONata expression ${JSON.stringify(test.expression)} does not parse${position !== undefined ? ` at position ${position}` : ''}: ${code ? `${code} ` : ''}${jsonataMessage(err)} (docs/filters.md)`,
        ],
      };
    }
  }
  if (typeof test.path !== 'string' || test.path.trim() === '')
    return { problems: [`${where}: a test needs a path and one operator, e.g. {path: action, in: [opened, synchronize]}, or an expression`] };
  const path = test.path.trim();
  const problems: string[] = [];
  const prototypeKey = path.split('.').find((segment) => PROTOTYPE_KEYS.has(segment));
  if (prototypeKey) problems.push(`${where}: path '${path}' names '${prototypeKey}', a key filters never look up (it could reach an object's prototype)`);
  if (path.split('.').some((segment) => segment === ''))
    problems.push(`${where}: path '${path}' has an empty segment; write dot paths like pull_request.base.ref`);
  if (ops.length !== 1) {
    const found = ops.length ? `it has ${ops.join(' and ')}` : 'it has none';
    problems.push(
      `${where}: a test takes exactly one of ${[...OPERATORS, ...extra.EXTRA_OPERATORS].join(', ')} (${found}); split it into one test per operator, e.g. [{path: action, equals: opened}, {path: pull_request.draft, equals: false}]`,
    );
    return { problems };
  }
  if (extra.isExtraOperator(ops[0])) return extra.compileExtraTest(path, ops[0], test, where, { valueAt, missing: MISSING, describe }, baseDir);
  const op = ops[0] as Operator;
  const value = test[op];
  if ((op === 'equals' || op === 'not_equals') && !isScalar(value))
    problems.push(`${where}: ${op} takes a string, number, boolean or null; for a list of values use ${op === 'equals' ? 'in' : 'not_in'}: [a, b]`);
  if ((op === 'in' || op === 'not_in') && (!Array.isArray(value) || value.length === 0 || !value.every(isScalar)))
    problems.push(`${where}: ${op} takes a non-empty list of strings, numbers, booleans or null, e.g. ${op}: [opened, synchronize]`);
  if (op === 'exists' && typeof value !== 'boolean') problems.push(`${where}: exists takes true or false`);
  let regex: RegExp | undefined;
  if (op === 'matches') {
    if (typeof value !== 'string') problems.push(`${where}: matches takes a regular expression as a string, e.g. matches: "^refs/heads/(main|release/.*)$"`);
    else {
      try {
        regex = new RegExp(value);
      } catch (err) {
        problems.push(`${where}: the regular expression ${JSON.stringify(value)} is invalid: ${errorMessage(err)}`);
      }
    }
  }
  if (problems.length) return { problems };
  return { problems, check: declarativeCheck(path, op, test, regex) };
}

function isAny(condition: FilterCondition): condition is { any: FilterTest[] } {
  return condition !== null && typeof condition === 'object' && Object.prototype.hasOwnProperty.call(condition, 'any');
}

/** The conditions of a `filter:` value: a list, or one condition standing alone. */
function conditionsOf(filter: FilterConfig): FilterCondition[] {
  return Array.isArray(filter) ? filter : [filter];
}

/** Compiles a filter; `where` names it in problems (e.g. "route 'prs' filter"). */
export function compileFilter(filter: FilterConfig, where: string, baseDir?: string): { problems: string[]; filter?: CompiledFilter } {
  const problems: string[] = [];
  const conditions: CompiledCondition[] = [];
  const list = Array.isArray(filter);
  conditionsOf(filter).forEach((condition, i) => {
    const at = list ? `${where}[${i}]` : where;
    const any = isAny(condition);
    const tests = any ? condition.any : [condition as FilterTest];
    if (any && (!Array.isArray(tests) || tests.length === 0 || Object.keys(condition).length !== 1)) {
      problems.push(
        `${at}: any takes a non-empty list of tests and nothing beside it, e.g. {any: [{path: action, equals: opened}, {path: action, equals: reopened}]}`,
      );
      return;
    }
    const compiled: CompiledCondition = { checks: [], expressions: [], any };
    tests.forEach((test, j) => {
      const made = compileTest(test, any ? `${at}.any[${j}]` : at, baseDir);
      problems.push(...made.problems);
      if (made.check) compiled.checks.push(made.check);
      if (made.expression) compiled.expressions.push(made.expression);
    });
    conditions.push(compiled);
  });
  if (problems.length) return { problems };
  return { problems, filter: new ConditionList(conditions, extra.filterNamesRequest(filter)) };
}

/** Expressions still to evaluate for one condition, with the reasons its declarative tests already failed for. */
interface PendingCondition {
  expressions: Expression[];
  any: boolean;
  reasons: string[];
}

/** All conditions must hold; the declarative tests are checked first, so most events are decided without awaiting. */
class ConditionList implements CompiledFilter {
  constructor(
    private readonly conditions: CompiledCondition[],
    readonly namesRequest: boolean,
  ) {}

  test(payload: unknown, json?: string, request?: extra.RequestView): FilterVerdict | Promise<FilterVerdict> {
    // headers and event beside the payload's keys, only for a filter that names them (and only when given).
    const subject = this.namesRequest && request ? extra.withRequest(payload, request) : payload;
    const pending: PendingCondition[] = [];
    for (const condition of this.conditions) {
      const reasons: string[] = [];
      for (const check of condition.checks) {
        const reason = check(subject);
        if (reason !== undefined) reasons.push(reason);
        else if (condition.any) break;
      }
      const passedOne = reasons.length < condition.checks.length;
      if (!condition.any && reasons.length) return { passed: false, reason: reasons[0] };
      if (condition.any && passedOne) continue;
      if (condition.expressions.length) pending.push({ expressions: condition.expressions, any: condition.any, reasons });
      else if (condition.any) return { passed: false, reason: noneOf(reasons) };
    }
    if (!pending.length) return PASSED;
    const text = json ?? JSON.stringify(payload);
    return this.testExpressions(subject !== payload && request ? extra.withRequestJson(text, request) : text, pending);
  }

  private async testExpressions(json: string, pending: PendingCondition[]): Promise<FilterVerdict> {
    try {
      return await pool.withJob(json, (evaluate) => this.evaluateAll(evaluate, pending));
    } catch (err) {
      const failed = unavailable(pending[0].expressions[0], err);
      return { passed: false, reason: failed.reason, error: failed.error };
    }
  }

  private async evaluateAll(evaluate: Evaluate, pending: PendingCondition[]): Promise<FilterVerdict> {
    for (const condition of pending) {
      const reasons = [...condition.reasons];
      let error: string | undefined;
      let passedOne = false;
      for (const expression of condition.expressions) {
        const failed = await expressionCheck(expression, evaluate);
        if (!failed) {
          passedOne = true;
          if (condition.any) break;
          continue;
        }
        if (!condition.any) return { passed: false, reason: failed.reason, error: failed.error };
        reasons.push(failed.reason);
        error ??= failed.error;
      }
      if (condition.any && !passedOne) return { passed: false, reason: noneOf(reasons), error };
    }
    return PASSED;
  }
}

function noneOf(reasons: string[]): string {
  return reasons.length === 1 ? reasons[0] : `none of the any tests passed: ${reasons.join('; ')}`;
}

/** What the filters read of a route (a Route, a subscription's route): its name for messages and its `filter:`. */
export interface FilteredRoute {
  name: string;
  filter?: FilterConfig;
}

/** Each route's compiled filter, made once per Route object (subscriptions get new objects when their file changes). */
const compiled = new WeakMap<FilteredRoute, { problems: string[]; filter?: CompiledFilter }>();

function compiledOf(route: FilteredRoute, configDir?: string): { problems: string[]; filter?: CompiledFilter } {
  let made = compiled.get(route);
  if (!made) {
    made = route.filter === undefined ? { problems: [] } : compileFilter(route.filter, `route '${route.name}' filter`, configDir);
    compiled.set(route, made);
  }
  return made;
}

/** Problems of a route's filter, for routeProblems (startup, doctor, subscriptions); in_file paths are relative to configDir. */
export function filterProblems(route: FilteredRoute, configDir?: string): string[] {
  return compiledOf(route, configDir).problems;
}

/**
 * The route's compiled filter; undefined when it has none. A filter with problems (only an embedding that skips
 * the startup checks gets one here) lets nothing through: the verdict names the problem.
 */
export function routeFilter(route: FilteredRoute): CompiledFilter | undefined {
  if (route.filter === undefined) return undefined;
  const made = compiledOf(route);
  if (made.filter) return made.filter;
  const reason = `the filter does not compile: ${made.problems.join('; ')}`;
  return { test: () => ({ passed: false, reason, error: reason }) };
}
