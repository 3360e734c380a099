// filters.ts: each operator, any, lists, missing paths, arrays, prototype keys, JSONata expressions and the
// problems a config is refused with. Payloads are real GitHub ones (packages/testing/fixtures) where the test is about them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileFilter, filterProblems, routeFilter, valueAt, type CompiledFilter, type FilterVerdict } from '../../src/filters/filters';
import { toRoute } from '../../src/routes/routes';
import type { FilterConfig } from '../../src/config/schema';

const FIXTURES = join(__dirname, '..', '..', '..', 'testing', 'fixtures', 'github');
const pullRequest = JSON.parse(readFileSync(join(FIXTURES, 'pull_request.opened.json'), 'utf8')) as Record<string, unknown>;
const labeled = { ...pullRequest, action: 'labeled', label: { name: 'bug' } };
const push = JSON.parse(readFileSync(join(FIXTURES, 'push.json'), 'utf8')) as Record<string, unknown>;

function compile(filter: unknown): CompiledFilter {
  const made = compileFilter(filter as FilterConfig, "route 't' filter");
  expect(made.problems).toEqual([]);
  return made.filter as CompiledFilter;
}

/** The verdict, awaited when the filter had to evaluate an expression. */
async function verdict(filter: unknown, payload: unknown): Promise<FilterVerdict> {
  return compile(filter).test(payload);
}

const problems = (filter: unknown): string[] => compileFilter(filter as FilterConfig, "route 't' filter").problems;

describe('valueAt', () => {
  it('walks own properties and indexes arrays with numeric segments', () => {
    expect(valueAt(pullRequest, 'pull_request.base.ref')).toBe((pullRequest.pull_request as { base: { ref: string } }).base.ref);
    expect(valueAt(pullRequest, 'pull_request.labels.0.name')).toBe('bug');
    expect(valueAt({ list: [['a', 'b']] }, 'list.0.1')).toBe('b');
  });

  it('finds nothing past the end of an array, under a non-numeric segment of one, or under a scalar', () => {
    const missing = valueAt({}, 'x');
    expect(valueAt(push, 'commits.99.id')).toBe(missing);
    expect(valueAt(push, 'commits.first')).toBe(missing);
    expect(valueAt(pullRequest, 'action.length')).toBe(missing);
  });

  it('never reaches prototypes, not even through an own __proto__ key that JSON.parse made', () => {
    const payload = JSON.parse('{"__proto__": {"polluted": "yes"}, "plain": {}}') as Record<string, unknown>;
    const missing = valueAt({}, 'x');
    expect(valueAt(payload, '__proto__.polluted')).toBe(missing);
    expect(valueAt(payload, 'plain.constructor')).toBe(missing);
    expect(valueAt(payload, 'plain.toString')).toBe(missing);
  });
});

describe('declarative tests', () => {
  it('equals: the value at the path, compared strictly (the number 1 is not the string "1")', async () => {
    expect(await verdict({ path: 'action', equals: 'opened' }, pullRequest)).toEqual({ passed: true });
    expect(await verdict({ path: 'pull_request.draft', equals: false }, pullRequest)).toEqual({ passed: true });
    expect(await verdict({ path: 'number', equals: '1' }, { number: 1 })).toEqual({ passed: false, reason: 'number is 1, not "1"' });
    expect(await verdict({ path: 'action', equals: 'opened' }, labeled)).toEqual({ passed: false, reason: 'action is "labeled", not "opened"' });
    expect(await verdict({ path: 'nope.deeper', equals: null }, pullRequest)).toEqual({ passed: false, reason: 'nope.deeper is missing, not null' });
  });

  it('not_equals: passes when the value differs or is missing', async () => {
    expect(await verdict({ path: 'action', not_equals: 'labeled' }, pullRequest)).toEqual({ passed: true });
    expect(await verdict({ path: 'nope', not_equals: 'labeled' }, pullRequest)).toEqual({ passed: true });
    expect(await verdict({ path: 'action', not_equals: 'labeled' }, labeled)).toEqual({
      passed: false,
      reason: 'action is "labeled", which the filter excludes',
    });
  });

  it('in and not_in: one of a list, none of a list (a missing value is in no list)', async () => {
    const wanted = { path: 'action', in: ['opened', 'synchronize'] };
    expect(await verdict(wanted, pullRequest)).toEqual({ passed: true });
    expect(await verdict(wanted, labeled)).toEqual({ passed: false, reason: 'action is "labeled", not one of "opened", "synchronize"' });
    expect(await verdict({ path: 'nope', in: ['x'] }, labeled)).toEqual({ passed: false, reason: 'nope is missing, not one of "x"' });
    expect(await verdict({ path: 'action', not_in: ['labeled', 'unlabeled'] }, pullRequest)).toEqual({ passed: true });
    expect(await verdict({ path: 'nope', not_in: ['labeled'] }, pullRequest)).toEqual({ passed: true });
    expect(await verdict({ path: 'action', not_in: ['labeled', 'unlabeled'] }, labeled)).toEqual({
      passed: false,
      reason: 'action is "labeled", one of the excluded "labeled", "unlabeled"',
    });
  });

  it('matches: a string value against the regular expression; numbers and missing values do not match', async () => {
    expect(await verdict({ path: 'ref', matches: '^refs/tags/' }, push)).toEqual({ passed: true });
    expect(await verdict({ path: 'ref', matches: '^refs/heads/(main|master)$' }, push)).toEqual({
      passed: false,
      reason: 'ref is "refs/tags/simple-tag", which does not match /^refs/heads/(main|master)$/',
    });
    expect(await verdict({ path: 'number', matches: '^1$' }, pullRequest)).toEqual({
      passed: false,
      reason: `number is ${String(pullRequest.number)}, not a string to match /^1$/`,
    });
    expect(await verdict({ path: 'nope', matches: '.*' }, push)).toEqual({ passed: false, reason: 'nope is missing, not a string to match /.*/' });
  });

  it('exists: true wants the path present (null counts), false wants it missing', async () => {
    expect(await verdict({ path: 'pull_request', exists: true }, pullRequest)).toEqual({ passed: true });
    expect(await verdict({ path: 'value', exists: true }, { value: null })).toEqual({ passed: true });
    expect(await verdict({ path: 'pull_request', exists: true }, push)).toEqual({ passed: false, reason: 'pull_request is missing' });
    expect(await verdict({ path: 'pull_request', exists: false }, push)).toEqual({ passed: true });
    expect(await verdict({ path: 'pull_request', exists: false }, pullRequest)).toEqual({
      passed: false,
      reason: 'pull_request is present, and the filter wants it missing',
    });
  });

  it('refuses paths through prototype keys at load (valueAt never follows them either)', () => {
    expect(problems({ path: '__proto__.polluted', equals: 'yes' })).toEqual([
      "route 't' filter: path '__proto__.polluted' names '__proto__', a key filters never look up (it could reach an object's prototype)",
    ]);
    expect(problems({ path: 'repository.constructor', exists: true })[0]).toContain("names 'constructor'");
  });

  it('shows objects and lists by kind and cuts long strings: a log line never carries the payload', async () => {
    const long = 'x'.repeat(500);
    const failed = (await verdict({ path: 'body', equals: 'short' }, { body: long })) as { reason: string };
    expect(failed.reason.length).toBeLessThan(100);
    expect(await verdict({ path: 'pull_request', equals: 'x' }, pullRequest)).toEqual({ passed: false, reason: 'pull_request is an object, not "x"' });
    expect(await verdict({ path: 'commits', equals: 'x' }, push)).toEqual({
      passed: false,
      reason: `commits is a list of ${(push.commits as unknown[]).length}, not "x"`,
    });
  });

  it('decides without a promise when the filter has no expression (the request path stays synchronous)', () => {
    const result = compile([{ path: 'action', equals: 'opened' }, { any: [{ path: 'pull_request.draft', equals: false }] }]).test(pullRequest);
    expect(result).toEqual({ passed: true });
    expect(result instanceof Promise).toBe(false);
  });
});

describe('lists and any', () => {
  it('a list passes only when every condition holds, and names the first that does not', async () => {
    const filter = [
      { path: 'action', in: ['opened', 'synchronize'] },
      { path: 'pull_request.draft', equals: false },
    ];
    expect(await verdict(filter, pullRequest)).toEqual({ passed: true });
    const draft = { ...pullRequest, pull_request: { ...(pullRequest.pull_request as object), draft: true } };
    expect(await verdict(filter, draft)).toEqual({ passed: false, reason: 'pull_request.draft is true, not false' });
  });

  it('any passes when one of its tests does, and lists every reason when none does', async () => {
    const filter = {
      any: [
        { path: 'action', equals: 'opened' },
        { path: 'label.name', equals: 'review-me' },
      ],
    };
    expect(await verdict(filter, pullRequest)).toEqual({ passed: true });
    expect(await verdict(filter, { ...labeled, label: { name: 'review-me' } })).toEqual({ passed: true });
    expect(await verdict(filter, labeled)).toEqual({
      passed: false,
      reason: 'none of the any tests passed: action is "labeled", not "opened"; label.name is "bug", not "review-me"',
    });
  });
});

describe('JSONata expressions', () => {
  it('passes when the expression gives true, fails with what it gave otherwise', async () => {
    expect(await verdict({ expression: "action = 'opened' and pull_request.draft = false" }, pullRequest)).toEqual({ passed: true });
    expect(await verdict({ expression: "action = 'opened'" }, labeled)).toEqual({
      passed: false,
      reason: `expression "action = 'opened'" gave false, not true`,
    });
    expect(await verdict({ expression: 'pull_request.title' }, pullRequest)).toEqual({
      passed: false,
      reason: `expression "pull_request.title" gave ${JSON.stringify((pullRequest.pull_request as { title: string }).title)}, not true`,
    });
    expect(await verdict({ expression: 'nope.x' }, pullRequest)).toEqual({ passed: false, reason: 'expression "nope.x" gave nothing, not true' });
  });

  it('navigates lists: a label among the pull request labels, a commit touching a path', async () => {
    const withLabels = { ...pullRequest, pull_request: { ...(pullRequest.pull_request as object), labels: [{ name: 'bug' }, { name: 'needs-review' }] } };
    expect(await verdict({ expression: "'needs-review' in pull_request.labels.name" }, withLabels)).toEqual({ passed: true });
    expect(await verdict({ expression: "'needs-review' in pull_request.labels.name" }, pullRequest)).toMatchObject({ passed: false });
    expect(await verdict({ expression: '$count(commits) = 0 and $contains(ref, "tags")' }, push)).toEqual({ passed: true });
  });

  it('an expression that throws counts as not passed, with the error for a warning', async () => {
    const result = await verdict({ expression: 'action + 1' }, pullRequest);
    expect(result).toMatchObject({ passed: false, error: expect.stringContaining('T2001') });
    expect((result as { reason: string }).reason).toMatch(/^expression "action \+ 1" failed: T2001 /);
  });

  it('an expression that runs away is stopped by the depth bound and fails', async () => {
    const result = await verdict({ expression: '($f := function($n) { 1 + $f($n + 1) }; $f(0) > 0)' }, {});
    expect(result).toMatchObject({ passed: false, error: expect.stringMatching(/^D1011 Stack overflow/) });
  });

  it('runs declarative tests first: a failing one decides without evaluating the expression', () => {
    const result = compile([{ path: 'action', equals: 'opened' }, { expression: 'true' }]).test(labeled);
    expect(result).toEqual({ passed: false, reason: 'action is "labeled", not "opened"' });
  });

  it('in any: a passing declarative test decides at once; otherwise the expressions are tried', async () => {
    const filter = { any: [{ path: 'action', equals: 'opened' }, { expression: "label.name = 'review-me'" }] };
    expect(compile(filter).test(pullRequest)).toEqual({ passed: true });
    expect(await verdict(filter, { ...labeled, label: { name: 'review-me' } })).toEqual({ passed: true });
    expect(await verdict(filter, labeled)).toEqual({
      passed: false,
      reason: `none of the any tests passed: action is "labeled", not "opened"; expression "label.name = 'review-me'" gave false, not true`,
    });
  });
});

describe('problems a config is refused with', () => {
  it('a JSONata syntax error names the expression and the position', () => {
    const [problem] = problems({ expression: "action = 'opened' and (" });
    expect(problem).toMatch(/^route 't' filter: the JSONata expression "action = 'opened' and \(" does not parse at position \d+: S\d{4} /);
  });

  it('an invalid regular expression names it', () => {
    expect(problems([{ path: 'ref', matches: '^refs/(heads' }])[0]).toMatch(/^route 't' filter\[0\]: the regular expression "\^refs\/\(heads" is invalid: /);
  });

  it('exactly one operator per test, and an expression stands alone', () => {
    expect(problems({ path: 'action', equals: 'opened', in: ['x'] })[0]).toContain(
      'a test takes exactly one of equals, not_equals, in, not_in, matches, exists, contains, missing, in_file (it has equals and in)',
    );
    expect(problems({ path: 'action' })[0]).toContain('(it has none)');
    expect(problems({ expression: 'true', path: 'action' })).toEqual([
      "route 't' filter: an expression stands alone; remove path (or make it a test of its own)",
    ]);
    expect(problems({ equals: 'opened' })[0]).toContain('a test needs a path and one operator');
  });

  it('values of the wrong kind, an empty any and an empty path segment', () => {
    expect(problems({ path: 'a', equals: ['x'] })[0]).toContain('equals takes a string, number, boolean or null; for a list of values use in: [a, b]');
    expect(problems({ path: 'a', in: [{ x: 1 }] })[0]).toContain('in takes a non-empty list');
    expect(problems({ path: 'a', exists: 'yes' })[0]).toContain('exists takes true or false');
    expect(problems({ any: [] })[0]).toContain('any takes a non-empty list of tests');
    expect(problems({ path: 'a..b', exists: true })[0]).toContain("path 'a..b' has an empty segment");
    expect(problems({ any: [{ path: 'a', exists: true }, { path: 'b' }] })[0]).toMatch(/^route 't' filter\.any\[1\]: /);
  });

  it('a route compiles its filter once, and one that does not compile lets nothing through', async () => {
    const route = toRoute('prs', { filter: { expression: '(' } }, 'static');
    expect(filterProblems(route)[0]).toMatch(/^route 'prs' filter: the JSONata expression "\(" does not parse/);
    const blocked = await routeFilter(route)?.test(pullRequest);
    expect(blocked).toMatchObject({ passed: false, reason: expect.stringContaining('the filter does not compile') });
    const good = toRoute('prs', { filter: { path: 'action', equals: 'opened' } }, 'static');
    expect(routeFilter(good)).toBe(routeFilter(good));
    expect(routeFilter(toRoute('all', {}, 'static'))).toBeUndefined();
  });
});
