#!/usr/bin/env node
// Writes oclif.manifest.json after a build so that the CLI starts without loading every command to read its flags.
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Config } = require('@oclif/core');

(async () => {
  const root = join(__dirname, '..');
  const config = await Config.load({ root });
  const plugin = config.plugins.get(config.pjson.name);
  const manifest = plugin.manifest;
  if (!manifest || Object.keys(manifest.commands).length === 0) throw new Error('no commands found: build packages/cli first (tsc -b)');
  writeFileSync(join(root, 'oclif.manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
})().catch((err) => {
  console.error(`could not write the oclif manifest: ${err.message}`);
  process.exit(1);
});
