#!/usr/bin/env node
// The hookwise command-line program (oclif).
const { existsSync } = require('node:fs');
const { join, resolve } = require('node:path');

// In a clone, `npm ci` builds through the root `prepare` script; if the build was skipped or failed there is no
// dist/, and oclif would only say "command gateway:run not found". Say what is missing instead.
const root = resolve(__dirname, '..');
if (!existsSync(join(root, 'dist', 'commands'))) {
  process.stderr.write(
    `hookwise is not built: ${join(root, 'dist')} is missing. Run \`npm run build\` at the root of the Hookwise repository (or install the hookwise package: npm install -g hookwise).\n`,
  );
  process.exit(1);
}

require('@oclif/core').execute({ dir: __dirname }).catch(require('@oclif/core/handle'));
