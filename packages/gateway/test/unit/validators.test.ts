// src/generated/*.ts are ajv's standalone validators of our schemas, written by scripts/gen-validators.js; this keeps
// the committed files from drifting and checks that they behave as the schemas compiled at run time would.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import * as schemas from '../../src/config/schema';
import { validateConfig } from '../../src/generated/config-validator';
import { validateSubscriptionEntry } from '../../src/generated/subscription-validator';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

interface ValidatorSpec {
  file: string;
  exportName: string;
  schemaName: keyof typeof schemas;
  options: Record<string, unknown>;
}
const { VALIDATORS, GENERATED_DIR, renderValidator } = require(join(TEST_DIR, '..', 'scripts', 'gen-validators.js')) as {
  VALIDATORS: ValidatorSpec[];
  GENERATED_DIR: string;
  renderValidator(spec: ValidatorSpec, schemas: unknown): string;
};

const specOf = (exportName: string) => VALIDATORS.find((spec) => spec.exportName === exportName)!;

describe('generated validators', () => {
  it.each(VALIDATORS.map((spec) => [spec.file, spec] as const))(
    'src/generated/%s equals what scripts/gen-validators.js generates (regenerate: npm run build && node packages/gateway/scripts/gen-validators.js && npm run build)',
    (_file, spec) => {
      expect(readFileSync(join(GENERATED_DIR, spec.file), 'utf8')).toBe(renderValidator(spec, schemas));
    },
  );

  const route = { events: ['push'], secret: 's', prompt: 'Build {ref}', deliver: 'log', deliver_extra: { repo: 'a/b', pr: 3 } };
  const configs: Array<[string, unknown]> = [
    ['empty (every default)', {}],
    [
      'a full valid config',
      {
        platforms: { webhook: { enabled: true, extra: { port: 9000, routes: { ci: route } } }, platform_01: { enabled: true, home_channel: 5 } },
        agent: { runner: 'command', cmd: 'x' },
        plugins: ['a', ['b', { x: 1 }]],
      },
    ],
    ['unknown keys', { nope: 1, platforms: { webhook: { extra: { routes: { ci: { ...route, colour: 'red' } } } } } }],
    [
      'wrong types',
      {
        platforms: {
          webhook: { enabled: 'yes', extra: { port: 'x', routes: { ci: { events: 'push', deliver_extra: { a: [] } } } } },
          platform_02: { home_channel: true },
        },
        agent: { concurrency: 1.5 },
      },
    ],
    [
      'limits and enums',
      {
        platforms: { webhook: { extra: { port: 70000, rate_limit: 0 } } },
        agent: { timeout_seconds: 0 },
        store: { synchronous: 'off' },
        log: { level: 'loud', format: 'xml' },
      },
    ],
    ['bad plugin entries', { plugins: [1, [], ['a', 'b', 'c'], ['a', 2]] }],
    ['not an object', ['a']],
  ];
  const entries: Array<[string, unknown]> = [
    ['a valid entry', { ...route, skills: [], created_at: 'x', updated_at: 'y' }],
    ['unknown keys and wrong types', { events: [1], secret: 2, enabled: 'no', extra: true, created_at: 3 }],
    ['not an object', 'push'],
  ];

  // Each input validated by both, on copies: the same verdict, the same errors array and the same defaults applied.
  it.each([
    ...configs.map(([name, value]) => ['validateConfig', name, value, validateConfig] as const),
    ...entries.map(([name, value]) => ['validateSubscriptionEntry', name, value, validateSubscriptionEntry] as const),
  ])('%s: %s gives what ajv compiling the schema at run time gives', (exportName, _name, value, generated) => {
    const spec = specOf(exportName);
    const compiled = new Ajv(spec.options).compile(schemas[spec.schemaName] as object);
    const [a, b] = [structuredClone(value), structuredClone(value)];
    expect(generated(a)).toBe(compiled(b));
    expect(generated.errors ?? null).toEqual(compiled.errors ?? null);
    expect(a).toEqual(b);
  });
});
