// Resolves and loads plugin packages named in config, CommonJS and ES modules alike; every failure is collected and
// reported together.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HookwiseConfigError, errorMessage } from '@hookwise/core';
import { PLUGIN_API_VERSION, isHookwisePlugin, type HookwisePlugin } from '@hookwise/core';
import { exports as exportsEntry } from 'resolve.exports';
import type { PluginSpec } from '../config/schema';

export interface LoadedPlugin {
  plugin: HookwisePlugin;
  /** What the plugin was loaded from: a package name or a file path. */
  source: string;
  /** Options given in config as `[name, options]`: defaults for each of its contributions. */
  options: Record<string, unknown>;
}

export interface LoadPluginsOptions {
  configDir: string;
  cwd?: string;
  /** CommonJS loader and resolver; tests and bundlers may pass their own. Default: this module's `require`. */
  requireFn?: NodeJS.Require;
  /** ES module loader, given a file URL. Default: a real dynamic `import()`. */
  importFn?: (url: string) => Promise<unknown>;
}

/** How a resolved file is loaded: `require` (commonjs) or `import()` (module). */
export type ModuleFormat = 'commonjs' | 'module';

export interface ResolvedPlugin {
  file: string;
  format: ModuleFormat;
}

/** A resolution: the file, or why not, with every place looked at (once each, in order). */
export interface PluginResolution {
  resolved?: ResolvedPlugin;
  /** Set when a package was found but offers no file to load: the search stops there, as Node's would. */
  problem?: string;
  tried: string[];
}

// TypeScript compiles `import()` to `require()` under "module": "commonjs", and require() (Node 20) loads neither
// an ES module with top-level await nor a package whose exports map offers only `import`. The body of a Function is
// not compiled, so this stays the real dynamic import. It is only given absolute file URLs, so the module it is
// called from does not matter for resolution.
const realImport = new Function('url', 'return import(url)') as (url: string) => Promise<unknown>;

function isPathSpec(name: string): boolean {
  return name.startsWith('./') || name.startsWith('../') || isAbsolute(name);
}

/** Package names to try for a spec: as written, then `hookwise-plugin-<x>` and `@hookwise/plugin-<x>` forms. */
export function candidateNames(name: string): string[] {
  if (name.startsWith('@')) {
    const [scope, bare] = name.split('/');
    return bare && !bare.startsWith('hookwise-plugin-') ? [name, `${scope}/hookwise-plugin-${bare}`] : [name];
  }
  if (name.startsWith('hookwise-plugin-')) return [name];
  return [name, `hookwise-plugin-${name}`, `@hookwise/plugin-${name}`];
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** `node_modules/<name>` in `base` or the nearest directory above it that has one, as Node's resolver walks. */
export function findPackageDir(name: string, base: string): string | undefined {
  let dir = resolve(base);
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Node's rule: .mjs and .cjs say it, a .js file follows the `type` of the nearest package.json. */
export function moduleFormatOf(file: string): ModuleFormat {
  const ext = extname(file);
  if (ext === '.mjs') return 'module';
  if (ext !== '.js') return 'commonjs';
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return readJson(join(dir, 'package.json'))?.type === 'module' ? 'module' : 'commonjs';
    if (dirname(dir) === dir) return 'commonjs';
  }
}

/**
 * The file a package directory offers as `.`: from its exports map (resolve.exports does the condition matching:
 * `require`, then `import`, each with `node` and `default`), else `main`, else index.js.
 */
function packageEntry(dir: string, req: NodeJS.Require): ResolvedPlugin | string {
  const pkg = readJson(join(dir, 'package.json'));
  if (!pkg) return `${join(dir, 'package.json')} is not valid JSON`;
  if (pkg.exports !== undefined) {
    for (const require of [true, false]) {
      let target: string | undefined;
      try {
        target = exportsEntry(pkg, '.', { require })?.[0];
      } catch {
        /* this condition set has no "." entry */
      }
      if (target) {
        const file = resolve(dir, target);
        if (!existsSync(file)) return `${dir}: its exports map points "." at ${target}, which does not exist (not built or not packed?)`;
        return { file, format: moduleFormatOf(file) };
      }
    }
    return `${dir}: its package.json "exports" has no "." entry for require or import; export the plugin as "."`;
  }
  try {
    const file = req.resolve(dir);
    return { file, format: moduleFormatOf(file) };
  } catch {
    return `${dir}: its main file (${typeof pkg.main === 'string' ? pkg.main : 'index.js'}) does not exist (not built or not packed?)`;
  }
}

/** A file or directory path spec: the file, or a directory's package entry. */
function resolvePath(full: string, req: NodeJS.Require): ResolvedPlugin | string | undefined {
  if (existsSync(full) && statSync(full).isDirectory() && existsSync(join(full, 'package.json'))) return packageEntry(full, req);
  try {
    const file = req.resolve(full);
    return { file, format: moduleFormatOf(file) };
  } catch {
    return undefined;
  }
}

/** A package name from one base: Node's CommonJS resolver first (it honours jest's and bundlers' mappings), then the package's own exports map. */
function resolvePackage(name: string, base: string | undefined, req: NodeJS.Require): ResolvedPlugin | string | undefined {
  try {
    const file = base === undefined ? req.resolve(name) : req.resolve(name, { paths: [base] });
    return { file, format: moduleFormatOf(file) };
  } catch {
    // Not found, or found with no `require` entry (an ESM-only exports map): look for the package itself.
  }
  const dir = findPackageDir(name, base ?? __dirname);
  return dir ? packageEntry(dir, req) : undefined;
}

/** Where a spec resolves: config dir, then working directory, then (package names only) next to the gateway itself. */
export function resolvePluginSpec(name: string, opts: LoadPluginsOptions): PluginResolution {
  const req = opts.requireFn ?? require;
  const bases = [...new Set([resolve(opts.configDir), resolve(opts.cwd ?? process.cwd())])];
  const tried: string[] = [];
  if (isPathSpec(name)) {
    for (const full of [...new Set(bases.map((base) => resolve(base, name)))]) {
      tried.push(full);
      const found = resolvePath(full, req);
      if (typeof found === 'string') return { problem: found, tried };
      if (found) return { resolved: found, tried };
    }
    return { tried };
  }
  for (const candidate of candidateNames(name)) {
    for (const base of [...bases, undefined]) {
      tried.push(base === undefined ? `${candidate} (bundled with the gateway)` : `${candidate} (from ${base})`);
      const found = resolvePackage(candidate, base, req);
      if (typeof found === 'string') return { problem: found, tried };
      if (found) return { resolved: found, tried };
    }
  }
  return { tried };
}

/**
 * The plugin a module exports: its default export, else an export named `plugin`. Modules loaded with import()
 * see a CommonJS module's `module.exports` as `default`, so `default.default` (TypeScript's `export default`)
 * and `default.plugin` are looked at too.
 */
export function pluginFromModule(mod: unknown, source: string): HookwisePlugin | string {
  const ns = (mod ?? {}) as Record<string, unknown>;
  const inner = (ns.default ?? {}) as Record<string, unknown>;
  const candidate = [ns.default, inner.default, ns.plugin, inner.plugin, mod].find(isHookwisePlugin);
  if (!candidate) {
    const names = typeof mod === 'object' && mod !== null ? Object.keys(mod) : [];
    return `${source} exports no Hookwise plugin (${names.length ? `its exports: ${names.join(', ')}` : 'it exports nothing'}): default-export definePlugin({ ... }) from @hookwise/core, or export it under the name \`plugin\``;
  }
  if (candidate.meta.api !== PLUGIN_API_VERSION) {
    return `${candidate.meta.name}@${candidate.meta.version} needs plugin API ${candidate.meta.api}, this Hookwise provides plugin API ${PLUGIN_API_VERSION}`;
  }
  return candidate;
}

/** Loads one spec; a string is the problem, worded for the `plugins:` list. */
async function loadOne(spec: PluginSpec, opts: LoadPluginsOptions): Promise<LoadedPlugin | string> {
  const [name, options] = Array.isArray(spec) ? [spec[0], spec[1] ?? {}] : [spec, {}];
  const { resolved, problem, tried } = resolvePluginSpec(name, opts);
  if (problem) return `plugin '${name}' cannot be loaded: ${problem}`;
  if (!resolved) {
    const install = isPathSpec(name) ? 'fix the path' : `install it in the config dir (npm install ${candidateNames(name).at(-1)}) or fix the name`;
    return `plugin '${name}' was not found; tried:\n      ${tried.join('\n      ')}\n    ${install}`;
  }
  let mod: unknown;
  try {
    mod = resolved.format === 'module' ? await (opts.importFn ?? realImport)(pathToFileURL(resolved.file).href) : (opts.requireFn ?? require)(resolved.file);
  } catch (err) {
    return `plugin '${name}' (${resolved.file}, ${resolved.format === 'module' ? 'ES module' : 'CommonJS'}) threw while loading: ${errorMessage(err)}`;
  }
  const plugin = pluginFromModule(mod, `plugin '${name}' (${resolved.file})`);
  return typeof plugin === 'string' ? plugin : { plugin, source: name, options };
}

/** Loads every spec (in parallel; results keep the order of `specs`); throws one config error listing every problem. */
export async function loadPlugins(specs: readonly PluginSpec[], opts: LoadPluginsOptions): Promise<LoadedPlugin[]> {
  const results = await Promise.all(specs.map((spec) => loadOne(spec, opts)));
  const problems = results.filter((r): r is string => typeof r === 'string');
  if (problems.length) throw new HookwiseConfigError(problems, 'plugins could not be loaded', 'HW_E_PLUGIN_LOAD');
  return results as LoadedPlugin[];
}
