// SPEC 2.6 and DESIGN 4: the template renderer.
import fc from 'fast-check';
import { NESTED_VALUE_LIMIT, RAW_DUMP_LIMIT, dumpPayload, renderExtra, renderPrompt, renderTemplate, unresolvedPlaceholders } from '../../src/template';

const payload = {
  action: 'opened',
  pull_request: { number: 42, title: 'Fix {action} bug', draft: false, labels: [{ name: 'bug' }], merged_at: null },
  commits: [{ id: 'abc' }, { id: 'def' }],
  repository: { full_name: 'octo/repo' },
};

describe('renderTemplate', () => {
  it('resolves dot paths, numbers, booleans and null', () => {
    expect(renderTemplate('{action} #{pull_request.number} draft={pull_request.draft} merged={pull_request.merged_at}', payload)).toBe(
      'opened #42 draft=false merged=null',
    );
  });

  it('indexes arrays with numeric segments', () => {
    expect(renderTemplate('{commits.1.id} {pull_request.labels.0.name}', payload)).toBe('def bug');
  });

  it('keeps the literal placeholder for missing keys, out-of-range indexes and paths through scalars', () => {
    expect(renderTemplate('{missing} {commits.9.id} {action.length} {commits.x}', payload)).toBe('{missing} {commits.9.id} {action.length} {commits.x}');
  });

  it('never walks the prototype chain', () => {
    expect(renderTemplate('{__proto__} {constructor} {toString} {pull_request.constructor.name}', payload)).toBe(
      '{__proto__} {constructor} {toString} {pull_request.constructor.name}',
    );
  });

  it('serialises objects and lists as indented JSON cut at 2000 characters', () => {
    expect(renderTemplate('{repository}', payload)).toBe(JSON.stringify(payload.repository, null, 2));
    const big = { list: Array.from({ length: 1000 }, (_, i) => ({ i })) };
    const out = renderTemplate('{list}', big);
    expect(out).toHaveLength(NESTED_VALUE_LIMIT);
    expect(out).toBe(JSON.stringify(big.list, null, 2).slice(0, NESTED_VALUE_LIMIT));
  });

  it('replaces {__raw__} with the payload as indented JSON cut at 4000 characters, mixed with variables', () => {
    expect(renderTemplate('A {action}: {__raw__}', payload)).toBe(`A opened: ${JSON.stringify(payload, null, 2)}`);
    const big = { text: 'y'.repeat(10_000) };
    expect(renderTemplate('{__raw__}', big)).toHaveLength(RAW_DUMP_LIMIT);
  });

  it('does not expand placeholders that come from the payload (one pass)', () => {
    expect(renderTemplate('{pull_request.title}', payload)).toBe('Fix {action} bug');
  });

  it('leaves text without placeholders and unbalanced braces alone', () => {
    expect(renderTemplate('no {placeholders here} { } {a..b} }{', payload)).toBe('no {placeholders here} { } {a..b} }{');
  });
});

describe('renderPrompt and renderExtra', () => {
  it('dumps the whole payload (cut at 4000) when the route has no prompt', () => {
    expect(renderPrompt(undefined, payload)).toBe(dumpPayload(payload));
    expect(renderPrompt(undefined, { t: 'z'.repeat(9000) })).toHaveLength(RAW_DUMP_LIMIT);
  });

  it('renders every deliver_extra value with the same rules', () => {
    expect(renderExtra({ repo: '{repository.full_name}', pr_number: '{pull_request.number}', chat_id: '-100', x: '{nope}' }, payload)).toEqual({
      repo: 'octo/repo',
      pr_number: '42',
      chat_id: '-100',
      x: '{nope}',
    });
  });
});

describe('renderTemplate properties', () => {
  it('never throws, and payload text is never expanded again', () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), (template, value) => {
        const out = renderTemplate(template, value);
        expect(typeof out).toBe('string');
      }),
      { numRuns: 500 },
    );
  });

  it('substitutes payload strings verbatim, even when they look like placeholders', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const p = { a, b, nested: { a } };
        expect(renderTemplate('{a}|{b}|{nested.a}', p)).toBe(`${a}|${b}|${a}`);
      }),
      { numRuns: 500 },
    );
  });
});

describe('unresolvedPlaceholders', () => {
  it('lists each placeholder that matches nothing once, in order, and never {__raw__} or a var', () => {
    const payload = { ref: 'main', pull_request: null, items: [1] };
    const template = 'Summarise: {ref} {pull_request.html_url} {items.3} {missing} {missing} {__raw__} {__event_count__} {items.0}';
    expect(unresolvedPlaceholders(template, payload, { __event_count__: 1 })).toEqual(['{pull_request.html_url}', '{items.3}', '{missing}']);
    // The rendering keeps them literal, as before.
    expect(renderTemplate('{ref} {missing}', payload)).toBe('main {missing}');
    expect(unresolvedPlaceholders(undefined, payload)).toEqual([]);
  });
});
