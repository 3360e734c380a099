#!/usr/bin/env node
// Writes oclif.manifest.json after a build so that the CLI starts without loading every command to read its flags.
// Production mode, or oclif records src/*.ts paths (there is a tsconfig.json here) that a packed CLI lacks.
process.env.NODE_ENV = 'production';
const { rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Config } = require('@oclif/core');

(async () => {
  const root = join(__dirname, '..');
  // oclif reads an existing manifest instead of the commands: remove it, or new commands never get in.
  rmSync(join(root, 'oclif.manifest.json'), { force: true });
  const config = await Config.load({ root });
  const plugin = config.plugins.get(config.pjson.name);
  const manifest = plugin.manifest;
  if (!manifest || Object.keys(manifest.commands).length === 0) throw new Error('no commands found: build packages/cli first (tsc -b)');
  writeFileSync(join(root, 'oclif.manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
})().catch((err) => {
  console.error(`could not write the oclif manifest: ${err.message}`);
  process.exit(1);
});
