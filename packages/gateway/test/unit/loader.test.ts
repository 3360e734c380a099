// The plugin loader: where it looks, how it chooses require or import(), what its messages say, and (in a real
// node process, since jest's VM has no dynamic import) that ES modules with top-level await load.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { HookwiseConfigError, PLUGIN_API_VERSION, definePlugin } from '@hookwise/core';
import { candidateNames, loadPlugins, moduleFormatOf, pluginFromModule, resolvePluginSpec } from '../../src/plugins/loader';

const run = promisify(execFile);
const GATEWAY_DIST = join(__dirname, '..', '..', 'dist', 'index.js');
const CORE_DIR = join(__dirname, '..', '..', '..', 'core');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hookwise-loader-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Writes files under the temp dir: `{ 'node_modules/x/package.json': {...} }`; objects are written as JSON. */
function files(tree: Record<string, string | object>): void {
  for (const [path, content] of Object.entries(tree)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), typeof content === 'string' ? content : JSON.stringify(content));
  }
}

const CJS_PLUGIN = (name: string) =>
  `const { definePlugin } = require('@hookwise/core');\nmodule.exports = definePlugin({ meta: { name: '${name}', version: '1.0.0', api: 2 }, contributes: [] });\n`;

async function problemsOf(promise: Promise<unknown>): Promise<string[]> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HookwiseConfigError);
  return (err as HookwiseConfigError).problems;
}

describe('candidateNames', () => {
  it('tries the name, then hookwise-plugin-<x> and @hookwise/plugin-<x>; scoped names keep their scope', () => {
    expect(candidateNames('file-drop')).toEqual(['file-drop', 'hookwise-plugin-file-drop', '@hookwise/plugin-file-drop']);
    expect(candidateNames('hookwise-plugin-x')).toEqual(['hookwise-plugin-x']);
    expect(candidateNames('@acme/x')).toEqual(['@acme/x', '@acme/hookwise-plugin-x']);
  });
});

describe('moduleFormatOf', () => {
  it('follows Node: .mjs and .cjs by extension, .js by the nearest package.json "type"', () => {
    files({
      'esm/package.json': { type: 'module' },
      'esm/lib/a.js': '',
      'esm/cjs/package.json': {},
      'esm/cjs/b.js': '',
      'plain/package.json': {},
      'plain/c.js': '',
    });
    expect(moduleFormatOf(join(dir, 'x.mjs'))).toBe('module');
    expect(moduleFormatOf(join(dir, 'esm', 'x.cjs'))).toBe('commonjs');
    expect(moduleFormatOf(join(dir, 'esm', 'lib', 'a.js'))).toBe('module');
    expect(moduleFormatOf(join(dir, 'esm', 'cjs', 'b.js'))).toBe('commonjs');
    expect(moduleFormatOf(join(dir, 'plain', 'c.js'))).toBe('commonjs');
  });
});

describe('resolvePluginSpec', () => {
  it('finds a package whose exports map offers "." only to import, and marks it for import()', () => {
    files({
      'node_modules/hookwise-plugin-esm/package.json': { name: 'hookwise-plugin-esm', type: 'module', exports: { '.': { import: './index.js' } } },
      'node_modules/hookwise-plugin-esm/index.js': 'export default 1;',
    });
    const { resolved, tried } = resolvePluginSpec('esm', { configDir: dir, cwd: dir });
    expect(resolved).toEqual({ file: join(dir, 'node_modules', 'hookwise-plugin-esm', 'index.js'), format: 'module' });
    // `esm` itself was looked for first, once from the config dir (here also the working directory) and once next to the gateway.
    expect(tried).toEqual([`esm (from ${dir})`, 'esm (bundled with the gateway)', `hookwise-plugin-esm (from ${dir})`]);
  });

  it('prefers the require entry of a dual package', () => {
    files({
      'node_modules/dual/package.json': { name: 'dual', exports: { '.': { import: './index.mjs', require: './index.cjs' } } },
      'node_modules/dual/index.mjs': '',
      'node_modules/dual/index.cjs': '',
    });
    expect(resolvePluginSpec('dual', { configDir: dir, cwd: dir }).resolved).toEqual({
      file: join(dir, 'node_modules', 'dual', 'index.cjs'),
      format: 'commonjs',
    });
  });

  it('resolves a relative path from the config dir, a directory through its package.json', () => {
    files({ 'local/package.json': { name: 'local', type: 'module', exports: { '.': { import: './main.js' } } }, 'local/main.js': '', 'single.mjs': '' });
    expect(resolvePluginSpec('./local', { configDir: dir, cwd: '/' }).resolved).toEqual({ file: join(dir, 'local', 'main.js'), format: 'module' });
    expect(resolvePluginSpec('./single.mjs', { configDir: dir, cwd: '/' }).resolved).toEqual({ file: join(dir, 'single.mjs'), format: 'module' });
  });
});

describe('loadPlugins', () => {
  it('says what it tried, once each, when a plugin is not installed', async () => {
    const [problem] = await problemsOf(loadPlugins(['no-such-thing'], { configDir: dir, cwd: dir }));
    const tried = problem
      .split('\n')
      .slice(1, -1)
      .map((line) => line.trim());
    expect(problem.split('\n')[0]).toBe("plugin 'no-such-thing' was not found; tried:");
    expect(tried).toEqual([
      `no-such-thing (from ${dir})`,
      'no-such-thing (bundled with the gateway)',
      `hookwise-plugin-no-such-thing (from ${dir})`,
      'hookwise-plugin-no-such-thing (bundled with the gateway)',
      `@hookwise/plugin-no-such-thing (from ${dir})`,
      '@hookwise/plugin-no-such-thing (bundled with the gateway)',
    ]);
    expect(new Set(tried).size).toBe(tried.length);
    expect(problem.split('\n').at(-1)!.trim()).toBe('install it in the config dir (npm install @hookwise/plugin-no-such-thing) or fix the name');
  });

  it('lists the config dir and the working directory apart when they differ, and a missing path once per base', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'hookwise-loader-cwd-'));
    try {
      const [byName, byPath] = await problemsOf(loadPlugins(['x', './gone.js'], { configDir: dir, cwd }));
      expect(byName).toContain(`x (from ${dir})\n      x (from ${cwd})\n      x (bundled with the gateway)`);
      expect(byPath).toBe(`plugin './gone.js' was not found; tried:\n      ${join(dir, 'gone.js')}\n      ${join(cwd, 'gone.js')}\n    fix the path`);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('names a package it found but cannot load: no "." export, or a missing built file', async () => {
    files({
      'node_modules/hookwise-plugin-sub/package.json': { name: 'hookwise-plugin-sub', exports: { './feature': './feature.js' } },
      'node_modules/hookwise-plugin-unbuilt/package.json': { name: 'hookwise-plugin-unbuilt', exports: { '.': { import: './dist/index.js' } } },
    });
    const problems = await problemsOf(loadPlugins(['sub', 'unbuilt'], { configDir: dir, cwd: dir }));
    expect(problems).toEqual([
      `plugin 'sub' cannot be loaded: ${join(dir, 'node_modules', 'hookwise-plugin-sub')}: its package.json "exports" has no "." entry for require or import; export the plugin as "."`,
      `plugin 'unbuilt' cannot be loaded: ${join(dir, 'node_modules', 'hookwise-plugin-unbuilt')}: its exports map points "." at ./dist/index.js, which does not exist (not built or not packed?)`,
    ]);
  });

  it('imports an ES module by its file URL (importFn stands in for import() inside jest) and takes its default export', async () => {
    files({
      'node_modules/hookwise-plugin-esm/package.json': { name: 'hookwise-plugin-esm', type: 'module', exports: { '.': { import: './index.js' } } },
      'node_modules/hookwise-plugin-esm/index.js': '',
    });
    const plugin = definePlugin({ meta: { name: 'hookwise-plugin-esm', version: '1.0.0', api: 2 }, contributes: [] });
    const urls: string[] = [];
    const [loaded] = await loadPlugins([['esm', { a: 1 }]], {
      configDir: dir,
      cwd: dir,
      importFn: async (url) => {
        urls.push(url);
        return { default: plugin };
      },
    });
    expect(urls).toEqual([pathToFileURL(join(dir, 'node_modules', 'hookwise-plugin-esm', 'index.js')).href]);
    expect(loaded).toEqual({ plugin, source: 'esm', options: { a: 1 } });
  });

  it('requires CommonJS plugins and reports one that throws, with every other problem, in one error', async () => {
    files({
      'node_modules/hookwise-plugin-good/package.json': { name: 'hookwise-plugin-good', main: 'index.js' },
      'node_modules/hookwise-plugin-good/index.js': CJS_PLUGIN('hookwise-plugin-good'),
      'node_modules/hookwise-plugin-bad/package.json': { name: 'hookwise-plugin-bad', main: 'index.js' },
      'node_modules/hookwise-plugin-bad/index.js': "throw new Error('no API key');",
    });
    const problems = await problemsOf(loadPlugins(['good', 'bad', 'missing'], { configDir: dir, cwd: dir }));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toBe(`plugin 'bad' (${join(dir, 'node_modules', 'hookwise-plugin-bad', 'index.js')}, CommonJS) threw while loading: no API key`);
    expect(problems[1]).toMatch(/^plugin 'missing' was not found/);
    const [good] = await loadPlugins(['good'], { configDir: dir, cwd: dir });
    expect(good.plugin.meta.name).toBe('hookwise-plugin-good');
  });
});

describe('pluginFromModule', () => {
  const plugin = definePlugin({ meta: { name: 'p', version: '1.0.0', api: 2 }, contributes: [] });

  it('takes the default export, else an export named `plugin`, also through a CommonJS module seen by import()', () => {
    expect(pluginFromModule({ default: plugin }, 'm')).toBe(plugin);
    expect(pluginFromModule(plugin, 'm')).toBe(plugin);
    expect(pluginFromModule({ plugin, other: 1 }, 'm')).toBe(plugin);
    // import() of TypeScript-compiled CommonJS: module.exports (with its own `default`) becomes the default export.
    expect(pluginFromModule({ default: { __esModule: true, default: plugin } }, 'm')).toBe(plugin);
    expect(pluginFromModule({ default: { plugin } }, 'm')).toBe(plugin);
  });

  it('says what the module exports instead, and which plugin API this gateway provides', () => {
    expect(pluginFromModule({ createThing: () => 1, version: '1' }, "plugin 'x' (/x.js)")).toBe(
      "plugin 'x' (/x.js) exports no Hookwise plugin (its exports: createThing, version): default-export definePlugin({ ... }) from @hookwise/core, or export it under the name `plugin`",
    );
    const future = definePlugin({ meta: { name: 'f', version: '9.0.0', api: 99 }, contributes: [] });
    expect(pluginFromModule(future, 'm')).toBe(`f@9.0.0 needs plugin API 99, this Hookwise provides plugin API ${PLUGIN_API_VERSION}`);
    // Plugin API 1 (verifiers) was removed: a plugin written for it is refused the same way.
    const old = definePlugin({ meta: { name: 'o', version: '1.0.0', api: 1 }, contributes: [] });
    expect(pluginFromModule(old, 'm')).toBe(`o@1.0.0 needs plugin API 1, this Hookwise provides plugin API ${PLUGIN_API_VERSION}`);
  });
});

describe('ES module plugins in a real node process', () => {
  it('loads an import-only, top-level-await package and a .mjs file by path, next to a CommonJS plugin', async () => {
    // @hookwise/core for the fixtures: the built workspace package, linked where Node finds it from the temp dir.
    mkdirSync(join(dir, 'node_modules', '@hookwise'), { recursive: true });
    symlinkSync(CORE_DIR, join(dir, 'node_modules', '@hookwise', 'core'), 'dir');
    files({
      'node_modules/hookwise-plugin-tla/package.json': {
        name: 'hookwise-plugin-tla',
        version: '2.0.0',
        type: 'module',
        exports: { '.': { import: './index.js' } },
      },
      'node_modules/hookwise-plugin-tla/index.js': [
        "import { definePlugin } from '@hookwise/core';",
        "const version = await new Promise((resolve) => setTimeout(() => resolve('2.0.0'), 20));",
        "export default definePlugin({ meta: { name: 'hookwise-plugin-tla', version, api: 2 }, contributes: [{ kind: 'agent', id: 'tla', create: () => ({ run: async () => ({ text: 'ok' }) }) }] });",
      ].join('\n'),
      'local.mjs':
        "import core from '@hookwise/core';\nexport const plugin = core.definePlugin({ meta: { name: 'local-mjs', version: '1.0.0', api: 2 }, contributes: [] });\n",
      'node_modules/hookwise-plugin-cjs/package.json': { name: 'hookwise-plugin-cjs', main: 'index.js' },
      'node_modules/hookwise-plugin-cjs/index.js': CJS_PLUGIN('hookwise-plugin-cjs'),
    });
    const script = `require(${JSON.stringify(GATEWAY_DIST)}).loadPlugins(['tla', './local.mjs', 'cjs'], { configDir: ${JSON.stringify(dir)} })
      .then((loaded) => console.log(JSON.stringify(loaded.map((l) => [l.source, l.plugin.meta.name, l.plugin.meta.version, l.plugin.contributes.map((c) => c.id)]))))
      .catch((err) => { console.error(err.message); process.exit(1); });`;
    const { stdout } = await run(process.execPath, ['-e', script], { cwd: dir, timeout: 30_000 });
    expect(JSON.parse(stdout)).toEqual([
      ['tla', 'hookwise-plugin-tla', '2.0.0', ['tla']],
      ['./local.mjs', 'local-mjs', '1.0.0', []],
      ['cjs', 'hookwise-plugin-cjs', '1.0.0', []],
    ]);
  });
});
