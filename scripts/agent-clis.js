#!/usr/bin/env node
// Installs the real agent CLIs the presets drive (plugins/agent-command/test/real-clis) at the versions pinned in
// .ci/agent-clis.json, as users install them (npm) but outside the workspaces: into HOOKWISE_AGENT_CLIS (default
// .ci/agent-clis, gitignored). `npm test` runs it before jest, so `npm ci && npm test` runs the real CLIs on a fresh
// machine too; an install already at the pinned versions is left as it is. The tests fail, never skip, when a CLI
// is missing or does not run.
'use strict';

const { execFileSync } = require('node:child_process');
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const pinned = JSON.parse(readFileSync(join(ROOT, '.ci', 'agent-clis.json'), 'utf8'));
const dir = process.env.HOOKWISE_AGENT_CLIS || join(ROOT, '.ci', 'agent-clis');

function installedVersion(name) {
  const manifest = join(dir, 'node_modules', name, 'package.json');
  return existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : undefined;
}

const wanted = Object.entries(pinned).filter(([name, version]) => installedVersion(name) !== version);
if (wanted.length === 0) process.exit(0);
const specs = wanted.map(([name, version]) => `${name}@${version}`);
console.log(`installing the agent CLIs the real-CLI tests run: ${specs.join(', ')} into ${dir}`);
try {
  execFileSync(
    'npm',
    [
      'install',
      '--prefix',
      dir,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      ...Object.entries(pinned).map(([n, v]) => `${n}@${v}`),
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
} catch (err) {
  console.error(`could not install ${specs.join(', ')} (${err.message}); the real-CLI tests will fail and say which CLI is missing`);
  process.exit(1);
}
