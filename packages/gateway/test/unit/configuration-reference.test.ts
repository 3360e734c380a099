// docs/configuration-reference.md is generated from configSchema; this keeps the committed file from drifting.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configSchema } from '../../src/config/schema';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

const root = join(TEST_DIR, '..', '..', '..');
const { renderConfigReference } = require(join(root, 'scripts', 'config-reference.js')) as { renderConfigReference(schema: unknown): string };

describe('docs/configuration-reference.md', () => {
  it('equals the text generated from configSchema (regenerate: node scripts/config-reference.js)', () => {
    expect(readFileSync(join(root, 'docs', 'configuration-reference.md'), 'utf8')).toBe(renderConfigReference(configSchema));
  });

  it('lists every route key with its description and the defaults of the spec', () => {
    const text = renderConfigReference(configSchema);
    for (const key of ['events', 'secret', 'prompt', 'skills', 'deliver', 'deliver_extra'])
      expect(text).toContain(`\`platforms.webhook.extra.routes.<route>.${key}\``);
    expect(text).toMatch(/`platforms\.webhook\.extra\.port` \| integer \| `8644`/);
    expect(text).toMatch(/`platforms\.webhook\.extra\.rate_limit` \| integer \| `30`/);
    expect(text).toMatch(/`platforms\.webhook\.extra\.max_body_bytes` \| integer \| `1048576`/);
  });
});
