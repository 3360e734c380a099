#!/usr/bin/env node
// Copies the repository's LICENSE into the package being packed (npm runs it as the package's `prepack`, in the
// package's folder) and removes it again (`postpack`, with --remove): every tarball ships the one LICENSE and no copy
// is committed. packages/testing's manifest contract checks that a package without a LICENSE of its own runs this.
'use strict';
const { copyFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const target = join(process.cwd(), 'LICENSE');
if (process.argv.includes('--remove')) rmSync(target, { force: true });
else copyFileSync(join(__dirname, '..', 'LICENSE'), target);
