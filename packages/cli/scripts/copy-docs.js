#!/usr/bin/env node
// Copies docs/errors.md into the CLI package (packages/cli/docs/) so that packed tarballs and the container image,
// which drop the repository's docs/, still carry the page every error message points to (`hookwise docs errors`).
const { copyFileSync, existsSync, mkdirSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const source = join(root, '..', '..', 'docs', 'errors.md');
if (!existsSync(source)) {
  // A packed CLI being re-packed has no repository around it; its own copy is already in place.
  if (existsSync(join(root, 'docs', 'errors.md'))) process.exit(0);
  console.error(`could not copy the error docs: ${source} is missing`);
  process.exit(1);
}
mkdirSync(join(root, 'docs'), { recursive: true });
copyFileSync(source, join(root, 'docs', 'errors.md'));
