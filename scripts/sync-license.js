#!/usr/bin/env node
// Copies the root LICENSE into every workspace package (npm pack ships each package's own LICENSE file).
// Run after changing LICENSE; packages/testing/test/plugin-manifests.test.ts fails while a copy differs.
'use strict';
const { copyFileSync, existsSync, readdirSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
for (const group of ['packages', 'plugins']) {
  for (const name of readdirSync(join(root, group))) {
    const dir = join(root, group, name);
    if (!existsSync(join(dir, 'package.json'))) continue;
    copyFileSync(join(root, 'LICENSE'), join(dir, 'LICENSE'));
  }
}
