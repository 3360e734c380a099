/// <reference types="jest" />
// Jest contract tests for a plugin package's manifest: the `hookwise` field of package.json (read by
// `hookwise plugins list` without running plugin code) must say what the plugin really contributes, and the
// package must be publishable (main/types into dist/, files, README and LICENSE, peer dependency on @hookwise/core).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PLUGIN_API_VERSION, isHookwisePlugin, type HookwisePlugin } from '@hookwise/core';

export interface HookwiseManifest {
  api: number;
  contributes: Array<{ kind: string; id: string }>;
}

export interface PluginPackageJson {
  name: string;
  version: string;
  main?: string;
  types?: string;
  exports?: unknown;
  files?: string[];
  peerDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
  hookwise?: HookwiseManifest;
  [key: string]: unknown;
}

const byKindAndId = (a: { kind: string; id: string }, b: { kind: string; id: string }) => `${a.kind}:${a.id}`.localeCompare(`${b.kind}:${b.id}`);

/** The `hookwise` manifest field that matches a plugin object. */
export function manifestOf(plugin: HookwisePlugin): HookwiseManifest {
  return { api: plugin.meta.api, contributes: plugin.contributes.map((c) => ({ kind: c.kind, id: c.id })).sort(byKindAndId) };
}

/**
 * `folder` (the package's directory), when given, is checked for the README.md and LICENSE that npm packs with
 * every package whatever `files` says; a LICENSE kept elsewhere counts when the package's `prepack` script copies it
 * in (the repository's packages run scripts/pack-license.js).
 */
export function describePluginManifestContract(pkg: PluginPackageJson, loadPlugin: () => unknown, folder?: string): void {
  describe(`${pkg.name}: package manifest contract`, () => {
    it('default-exports a Hookwise plugin whose meta is its package.json (name, version, hookwise.api)', () => {
      const mod = loadPlugin() as { default?: unknown };
      const plugin = mod?.default ?? mod;
      expect(isHookwisePlugin(plugin)).toBe(true);
      const { meta } = plugin as HookwisePlugin;
      expect(meta).toEqual({ name: pkg.name, version: pkg.version, api: pkg.hookwise?.api });
      expect(meta.api).toBe(PLUGIN_API_VERSION);
    });

    it('lists exactly the kinds and ids it contributes in the "hookwise" field', () => {
      const mod = loadPlugin() as { default?: unknown };
      const plugin = (mod?.default ?? mod) as HookwisePlugin;
      expect(pkg.hookwise).toBeDefined();
      const declared = { api: pkg.hookwise!.api, contributes: [...pkg.hookwise!.contributes].map(({ kind, id }) => ({ kind, id })).sort(byKindAndId) };
      expect(declared).toEqual(manifestOf(plugin));
    });

    // main and types are what node and TypeScript (node10 resolution) read; `exports` is optional, but when a
    // package has one it must lead to the same files. README.md and LICENSE need no `files` entry: npm always packs them.
    it('is publishable: main and types point into dist/, files ship dist (not the build info), README and LICENSE beside it', () => {
      expect(pkg.main).toBe('dist/index.js');
      expect(pkg.types).toBe('dist/index.d.ts');
      if (pkg.exports !== undefined) expect(pkg.exports).toMatchObject({ '.': { types: './dist/index.d.ts', default: './dist/index.js' } });
      expect(pkg.files).toEqual(expect.arrayContaining(['dist', '!dist/.tsbuildinfo']));
      if (folder !== undefined) {
        expect({ file: 'README.md', exists: existsSync(join(folder, 'README.md')) }).toEqual({ file: 'README.md', exists: true });
        const prepack = (pkg as { scripts?: Record<string, string> }).scripts?.prepack ?? '';
        const license = existsSync(join(folder, 'LICENSE')) || /\bpack-license\b|\bLICENSE\b/.test(prepack);
        expect({ file: 'LICENSE', shipped: license }).toEqual({ file: 'LICENSE', shipped: true });
      }
    });

    it('takes @hookwise/core as a peer dependency, not a bundled one', () => {
      expect(pkg.peerDependencies?.['@hookwise/core']).toMatch(/^\^\d+\.\d+\.\d+$/);
      expect(pkg.dependencies?.['@hookwise/core']).toBeUndefined();
    });
  });
}
