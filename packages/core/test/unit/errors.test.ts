// The error catalogue: every code documented in docs/errors.md and used somewhere, links to the docs for people,
// fixed texts for HTTP answers, and config errors recognised by their marker.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  DOCS_BASE,
  ERROR_CATALOGUE,
  HookwiseConfigError,
  HookwiseError,
  describeError,
  isHookwiseConfigError,
  isHookwiseError,
  type ErrorCode,
} from '@hookwise/core';

const ROOT = join(__dirname, '..', '..', '..', '..');
const CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** Every .ts file under the src folders of packages/* and plugins/*. */
function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const group of ['packages', 'plugins']) {
    for (const pkg of readdirSync(join(ROOT, group))) {
      const src = join(ROOT, group, pkg, 'src');
      if (statSync(join(ROOT, group, pkg)).isDirectory() && readdirSync(join(ROOT, group, pkg)).includes('src')) walk(src);
    }
  }
  return files;
}

describe('the error catalogue', () => {
  const docs = readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8');
  const sections = [...docs.matchAll(/^## (HW_E_[A-Z_]+)$/gm)].map((m) => m[1]);

  it('has a docs/errors.md section for every code, and none for a code it does not have', () => {
    expect([...sections].sort()).toEqual([...CODES].sort());
  });

  it('gives every section more than a heading: what it means and what to do', () => {
    for (const code of CODES) {
      const body = docs.split(`## ${code}\n`)[1].split('\n## ')[0].trim();
      expect({ code, words: body.split(/\s+/).length > 20 }).toEqual({ code, words: true });
    }
  });

  it('has every code used in some source file besides its own catalogue entry', () => {
    const texts = sourceFiles().map((file) => {
      const text = readFileSync(file, 'utf8');
      // errors.ts counts only outside the catalogue itself (wrapPluginError there throws HW_E_PLUGIN_CALL).
      return file.endsWith(join('core', 'src', 'errors.ts')) ? text.replace(/export const ERROR_CATALOGUE = \{[\s\S]*?\n\} as const;/, '') : text;
    });
    const unused = CODES.filter((code) => !texts.some((text) => new RegExp(`\\b${code}\\b`).test(text)));
    expect(unused).toEqual([]);
  });

  it('links each code to its docs section through the command that prints it, never a website', () => {
    expect(DOCS_BASE).toBe('hookwise docs errors');
    for (const code of CODES) expect(new HookwiseError(code).docsUrl).toBe(`hookwise docs errors ${code.toLowerCase()}`);
  });

  it('keeps the exact texts the HTTP answers send, free of links', () => {
    const answers = Object.fromEntries(
      CODES.filter((c) => ERROR_CATALOGUE[c].status !== undefined).map((c) => [c, [ERROR_CATALOGUE[c].status, ERROR_CATALOGUE[c].message]]),
    );
    expect(answers).toEqual({
      HW_E_UNKNOWN_ROUTE: [404, 'Unknown route'],
      HW_E_PAYLOAD_TOO_LARGE: [413, 'Payload too large'],
      HW_E_RATE_LIMITED: [429, 'Rate limit exceeded'],
      HW_E_MISSING_SIGNATURE: [401, 'Missing signature'],
      HW_E_INVALID_SIGNATURE: [401, 'Invalid signature'],
      HW_E_BAD_BODY: [400, 'Cannot parse body'],
      HW_E_BACKPRESSURE: [503, 'Too many pending events, retry later'],
      HW_E_SHUTTING_DOWN: [503, 'Gateway is shutting down'],
      HW_E_INTERNAL: [500, 'Internal error'],
    });
    expect(new HookwiseError('HW_E_INVALID_SIGNATURE').message).toBe('Invalid signature');
  });
});

describe('describeError', () => {
  it('adds the docs link to a HookwiseError for a person, leaving its message alone', () => {
    const err = new HookwiseError('HW_E_DELIVERY_AUTH', 'platform_01: the token was rejected: check platforms.platform_01.token');
    expect(describeError(err)).toBe(
      `platform_01: the token was rejected: check platforms.platform_01.token (details: hookwise docs errors hw_e_delivery_auth)`,
    );
    expect(err.message).not.toContain(DOCS_BASE);
  });

  it('shows other errors and values as they are', () => {
    expect(describeError(new Error('plain'))).toBe('plain');
    expect(describeError('a string')).toBe('a string');
  });
});

describe('HookwiseConfigError', () => {
  it('lists every problem and ends with the link of its code (HW_E_CONFIG by default)', () => {
    const err = new HookwiseConfigError(['agent.runner: unknown agent runner', "route 'ci' has no secret"], 'config.yaml is not valid');
    expect(err.message).toBe(
      `config.yaml is not valid:\n  - agent.runner: unknown agent runner\n  - route 'ci' has no secret\nDetails: hookwise docs errors hw_e_config`,
    );
    expect(err.code).toBe('HW_E_CONFIG');
    expect(err.problems).toHaveLength(2);
    expect(err.errors.map((e: Error) => e.message)).toEqual(err.problems);
    expect(describeError(err)).toBe(err.message);
  });

  it('takes the code whose docs explain the problems', () => {
    const err = new HookwiseConfigError(["plugin 'x' was not found"], 'plugins could not be loaded', 'HW_E_PLUGIN_LOAD');
    expect(err.code).toBe('HW_E_PLUGIN_LOAD');
    expect(err.docsUrl).toBe('hookwise docs errors hw_e_plugin_load');
    expect(err.message.endsWith('Details: hookwise docs errors hw_e_plugin_load')).toBe(true);
  });

  it('is recognised by its marker, also when it comes from another copy of core', () => {
    expect(isHookwiseConfigError(new HookwiseConfigError(['x']))).toBe(true);
    const fromAnotherCopy = Object.assign(new AggregateError([], 'x'), { [Symbol.for('hookwise.config-error')]: true, problems: ['x'] });
    expect(isHookwiseConfigError(fromAnotherCopy)).toBe(true);
    expect(isHookwiseConfigError(new AggregateError([], 'x'))).toBe(false);
    expect(isHookwiseConfigError(new HookwiseError('HW_E_CONFIG'))).toBe(false);
    expect(isHookwiseError(new HookwiseConfigError(['x']))).toBe(false);
    expect(isHookwiseConfigError(undefined)).toBe(false);
  });
});
