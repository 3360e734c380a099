// docs/sources.md is generated from the source plugins' READMEs; this keeps the committed guide current.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

const root = join(TEST_DIR, '..', '..', '..');
const { render } = require(join(root, 'scripts', 'sources-doc.js')) as { render(): string };

describe('docs/sources.md', () => {
  it('equals the text generated from plugins/source-*/README.md (regenerate: node scripts/sources-doc.js)', () => {
    expect(readFileSync(join(root, 'docs', 'sources.md'), 'utf8')).toBe(render());
  });

  it('has a section for GitHub, GitLab and generic first', () => {
    const text = render();
    expect(text.indexOf('## github')).toBeLessThan(text.indexOf('## gitlab'));
    expect(text.indexOf('## gitlab')).toBeLessThan(text.indexOf('## generic'));
  });
});
