/// <reference types="jest" />
// Jest contract tests for a plugin package's manifest: the `hookwise` field of package.json (read by
// `hookwise plugins list` without running plugin code) must say what the plugin really contributes, and the
// package must be publishable (main/types/exports, files, peer dependency on @hookwise/core).
import { OLDEST_PLUGIN_API_VERSION, PLUGIN_API_VERSION, isHookwisePlugin, type HookwisePlugin } from '@hookwise/core';

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

export function describePluginManifestContract(pkg: PluginPackageJson, loadPlugin: () => unknown): void {
  describe(`${pkg.name}: package manifest contract`, () => {
    it('default-exports a Hookwise plugin whose meta is its package.json (name, version, hookwise.api)', () => {
      const mod = loadPlugin() as { default?: unknown };
      const plugin = mod?.default ?? mod;
      expect(isHookwisePlugin(plugin)).toBe(true);
      const { meta } = plugin as HookwisePlugin;
      expect(meta).toEqual({ name: pkg.name, version: pkg.version, api: pkg.hookwise?.api });
      expect(meta.api).toBeGreaterThanOrEqual(OLDEST_PLUGIN_API_VERSION);
      expect(meta.api).toBeLessThanOrEqual(PLUGIN_API_VERSION);
    });

    it('lists exactly the kinds and ids it contributes in the "hookwise" field', () => {
      const mod = loadPlugin() as { default?: unknown };
      const plugin = (mod?.default ?? mod) as HookwisePlugin;
      expect(pkg.hookwise).toBeDefined();
      const declared = { api: pkg.hookwise!.api, contributes: [...pkg.hookwise!.contributes].map(({ kind, id }) => ({ kind, id })).sort(byKindAndId) };
      expect(declared).toEqual(manifestOf(plugin));
    });

    it('is publishable: main, types and exports point into dist/, files ship dist, README and LICENSE', () => {
      expect(pkg.main).toBe('dist/index.js');
      expect(pkg.types).toBe('dist/index.d.ts');
      expect(pkg.exports).toMatchObject({ '.': { types: './dist/index.d.ts', default: './dist/index.js' } });
      expect(pkg.files).toEqual(expect.arrayContaining(['dist', 'README.md', 'LICENSE']));
    });

    it('takes @hookwise/core as a peer dependency, not a bundled one', () => {
      expect(pkg.peerDependencies?.['@hookwise/core']).toMatch(/^\^\d+\.\d+\.\d+$/);
      expect(pkg.dependencies?.['@hookwise/core']).toBeUndefined();
    });
  });
}
