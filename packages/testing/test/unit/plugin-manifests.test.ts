// Every first-party plugin the hookwise CLI ships (plugins/* and the store packages): its package.json "hookwise" field
// says what it contributes (so `hookwise plugins list` can read it without running plugin code) and the package is
// publishable.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLUGIN_API_VERSION } from '@hookwise/core';
import { FIRST_PARTY_PLUGINS } from '@hookwise/cli';
import { describePluginManifestContract, type PluginPackageJson } from '../../src/manifest-contract';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

const root = join(TEST_DIR, '..', '..', '..');

/** plugins/<x> for @hookwise/plugin-<x>, packages/<x> for the other @hookwise/<x> (the stores). */
const folderOf = (name: string): string =>
  name.startsWith('@hookwise/plugin-')
    ? join(root, 'plugins', name.slice('@hookwise/plugin-'.length))
    : join(root, 'packages', name.slice('@hookwise/'.length));

// That @hookwise/cli depends on each of them is checked with the other places that must agree with the list, in
// packages/cli/test/unit/first-party-list.test.ts.
for (const name of FIRST_PARTY_PLUGINS) {
  const folder = folderOf(name);
  const pkg = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as PluginPackageJson;
  // Resolved through jest's moduleNameMapper to the plugin's src.
  describePluginManifestContract(pkg, () => require(name) as unknown);

  describe(`${name}: identity from package.json only`, () => {
    it('is written for the plugin API this Hookwise provides', () => {
      expect(pkg.hookwise?.api).toBe(PLUGIN_API_VERSION);
    });

    // package.json is the one place: definePlugin({ package: require('../../package.json') }) reads it.
    it('does not repeat its name, version or API in its sources', () => {
      const srcDir = join(folder, 'src');
      for (const file of readdirSync(srcDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
        const text = readFileSync(join(srcDir, file), 'utf8');
        expect({ file, name: text.includes(`'${pkg.name}'`) || text.includes(`"${pkg.name}"`) }).toEqual({ file, name: false });
        expect({ file, meta: /\bmeta\s*:\s*\{|\bapi\s*:\s*(\d|PLUGIN_API_VERSION)/.test(text) }).toEqual({ file, meta: false });
      }
    });
  });
}

describe('every workspace package', () => {
  const { existsSync } = jest.requireActual<typeof import('node:fs')>('node:fs');
  // Plugins still being written join this check when the server starts shipping them.
  const dirs = [...new Set([...readdirSync(join(root, 'packages')).map((name) => join(root, 'packages', name)), ...FIRST_PARTY_PLUGINS.map(folderOf)])].filter(
    (dir) => existsSync(join(dir, 'package.json')),
  );

  it.each(dirs)('%s ships README.md, and the root LICENSE copied in while npm packs it (scripts/pack-license.js)', (dir) => {
    expect(existsSync(join(dir, 'README.md'))).toBe(true);
    const scripts = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
    expect(scripts.prepack).toMatch(/node \.\.\/\.\.\/scripts\/pack-license\.js$/);
    expect(scripts.postpack).toMatch(/node \.\.\/\.\.\/scripts\/pack-license\.js --remove$/);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PluginPackageJson;
    // npm packs README.md and LICENSE whatever `files` says; plugins list only dist.
    expect(pkg.files).toEqual(expect.arrayContaining(['dist']));
    expect(pkg.main).toBe('dist/index.js');
    expect(pkg.types).toBe('dist/index.d.ts');
  });
});
