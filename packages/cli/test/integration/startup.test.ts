// Start-up cost of the built CLI: heavy packages are loaded by the code paths that use them, not on import.
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_BIN, closedPort, tempHome, writeConfig } from '../cli-process';
import { testProcessEnv } from '@hookwise/testing';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

jest.setTimeout(120_000);

const CORE_DIST = join(TEST_DIR, '..', '..', 'core', 'dist', 'index.js');
const MARKER = '\nLOADED-PACKAGES ';

/**
 * Runs `script` in a fresh node; returns its stdout and the names of the packages it loaded (from require.cache,
 * written to stderr at exit). Workspace packages load from their real paths: packages/<x> is @hookwise/<x>,
 * plugins/<x> is @hookwise/plugin-<x>.
 */
function packagesLoadedBy(script: string, env: NodeJS.ProcessEnv = {}): Promise<{ stdout: string; loaded: string[] }> {
  const report = `process.on('exit', () => {
    const names = new Set();
    for (const file of Object.keys(require.cache)) {
      const i = file.lastIndexOf('/node_modules/');
      const workspace = /\\/(packages|plugins)\\/([^/]+)\\/dist\\//.exec(file);
      if (i >= 0) {
        const parts = file.slice(i + '/node_modules/'.length).split('/');
        names.add(parts[0].startsWith('@') ? parts[0] + '/' + parts[1] : parts[0]);
      } else if (workspace) {
        names.add('@hookwise/' + (workspace[1] === 'plugins' ? 'plugin-' : '') + workspace[2]);
      }
    }
    process.stderr.write(${JSON.stringify(MARKER)} + JSON.stringify([...names]));
  });`;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', `${report}\n${script}`],
      { env: testProcessEnv(undefined, { OCLIF_COLUMNS: '1000', ...env }), timeout: 60_000 },
      (err, stdout, stderr) => {
        const at = String(stderr).lastIndexOf(MARKER);
        if (err || at < 0) reject(new Error(`${err?.message ?? 'no report'}\n${String(stderr)}`));
        else resolve({ stdout: String(stdout), loaded: JSON.parse(String(stderr).slice(at + MARKER.length)) as string[] });
      },
    );
  });
}

describe('CLI start-up', () => {
  it('importing @hookwise/core loads no schema compiler, logger, YAML parser, config finder or lock library', async () => {
    const { loaded } = await packagesLoadedBy(`require(${JSON.stringify(CORE_DIST)});`);
    expect(loaded).toContain('@hookwise/core');
    for (const name of ['ajv', 'winston', 'yaml', 'cosmiconfig', 'proper-lockfile']) expect(loaded).not.toContain(name);
  });

  it('`webhook list` loads neither ajv, the logger nor the server, its store, express or the plugins', async () => {
    const home = tempHome();
    try {
      writeConfig(home, await closedPort(), '      secret: startup-test-global-secret\n');
      writeFileSync(
        join(home, 'webhook_subscriptions.json'),
        JSON.stringify({
          ci: { events: ['push'], secret: 'startup-test-secret', skills: [], deliver: 'log', deliver_extra: {}, created_at: 'x', updated_at: 'x' },
        }),
      );
      const script = `process.argv = [process.execPath, ${JSON.stringify(CLI_BIN)}, 'webhook', 'list']; require(${JSON.stringify(CLI_BIN)});`;
      const { stdout, loaded } = await packagesLoadedBy(script, { HOOKWISE_HOME: home });
      expect(stdout).toMatch(/^ci\s+active\s+operator\s+push\s+log/m);
      // What it does need: the core and the config finder. The config and subscription validators are generated
      // ahead of time (packages/gateway/scripts/gen-validators.js), so ajv is not loaded either.
      expect(loaded).toEqual(expect.arrayContaining(['@hookwise/core', 'cosmiconfig']));
      for (const name of ['ajv', 'winston', 'yaml', 'proper-lockfile', 'express', 'better-sqlite3', '@hookwise/server', '@hookwise/store-sqlite'])
        expect(loaded).not.toContain(name);
      expect(loaded.filter((name) => name.startsWith('@hookwise/plugin-'))).toEqual([]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
