#!/usr/bin/env node
// Writes docs/cli.md from the built CLI's command definitions (`npx tsc -b packages/cli` first).
// `--check` writes nothing and exits 1 when docs/cli.md is out of date.
const { readFileSync, writeFileSync } = require('node:fs');
const { join, resolve } = require('node:path');
const { Config } = require('@oclif/core');
const { renderCliDocs } = require('../dist/cli-docs');

const CLI_ROOT = resolve(__dirname, '..');
const DOCS_FILE = join(CLI_ROOT, '..', '..', 'docs', 'cli.md');

async function main() {
  const text = renderCliDocs(await Config.load(CLI_ROOT));
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(DOCS_FILE, 'utf8');
    } catch {
      /* missing counts as out of date */
    }
    if (current !== text) {
      console.error('docs/cli.md is out of date: run `node packages/cli/scripts/gen-cli-docs.js` and commit the result');
      process.exit(1);
    }
    return;
  }
  writeFileSync(DOCS_FILE, text);
  console.log(`wrote ${DOCS_FILE}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
