// store.retention (issue 32) is a key of the config schema, not only of the store opener (store-backend.ts): a valid
// value loads as written, a misspelt or non-positive one is a config problem naming the key, and the generated
// configuration reference documents it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isHookwiseConfigError } from '@hookwise/core';
import { loadConfig } from '../../src/config/load';
import { configSchema } from '../../src/config/schema';

const root = join(__dirname, '..', '..', '..', '..');
const { renderConfigReference } = require(join(root, 'scripts', 'config-reference.js')) as { renderConfigReference(schema: unknown): string };

function load(storeLines: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'hw-retention-'));
  const store = storeLines.length ? ['store:', ...storeLines.map((l) => `  ${l}`)] : ['store: {}'];
  writeFileSync(join(dir, 'config.yaml'), [...store, ''].join('\n'));
  return loadConfig({ configDir: dir, env: {} });
}

function problemsOf(storeLines: string[]): string {
  try {
    load(storeLines);
  } catch (err) {
    expect(isHookwiseConfigError(err)).toBe(true);
    return (err as Error).message;
  }
  throw new Error('expected a config error');
}

it('loads store.retention.jobs_days as written, beside the backend keys', () => {
  const { config } = load(['backend: memory', 'retention: { jobs_days: 30 }']);
  expect(config.store).toMatchObject({ backend: 'memory', retention: { jobs_days: 30 } });
  expect(load(['retention: { jobs_days: 0.5 }']).config.store).toMatchObject({ retention: { jobs_days: 0.5 } });
  // Unset stays unset: each backend applies its default (7 days).
  expect((load([]).config.store as Record<string, unknown>).retention).toBeUndefined();
});

it('refuses a misspelt key, zero days and a non-number, naming store.retention', () => {
  expect(problemsOf(['retention: { jobs_day: 30 }'])).toMatch(/store\.retention.*jobs_day/);
  expect(problemsOf(['retention: { jobs_days: 0 }'])).toContain('store.retention.jobs_days');
  expect(problemsOf(['retention: { jobs_days: "30d" }'])).toContain('store.retention.jobs_days');
});

it('is documented in the configuration reference', () => {
  const text = renderConfigReference(configSchema);
  expect(text).toMatch(/\| `store\.retention` \| object \|/);
  expect(text).toMatch(/\| `store\.retention\.jobs_days` \| number \| .*Days a done job is kept after it finished \(default 7\)/);
});
