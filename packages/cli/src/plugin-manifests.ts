// Finds the package.json of every plugin a gateway would load (first-party and config `plugins:`) and reads its
// `hookwise` manifest field: what the plugin contributes, known without running any plugin code.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, parse, resolve } from 'node:path';
import { PLUGIN_API_VERSION } from '@hookwise/core';
import { candidateNames, findPackageDir, type PluginSpec } from '@hookwise/gateway';

export interface ListedPlugin {
  /** As written in config, or the package name of a first-party plugin. */
  spec: string;
  /** Why it loads: first-party, the `plugins:` list, or `store.backend` naming a store package. */
  source: 'first-party' | 'config' | 'store.backend';
  name?: string;
  version?: string;
  api?: number;
  contributes: Array<{ kind: string; id: string }>;
  /** Directory of the plugin package. */
  path?: string;
  /** Why this plugin would not load, as far as the manifest can tell. */
  problem?: string;
}

interface PackageJson {
  name?: string;
  version?: string;
  hookwise?: { api?: number; contributes?: Array<{ kind: string; id: string }> };
}

/** The nearest package.json at or above a file or directory. */
function nearestPackageJson(path: string): string | undefined {
  let dir = existsSync(path) && statSync(path).isDirectory() ? path : dirname(path);
  const { root } = parse(dir);
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) return candidate;
    if (dir === root) return undefined;
    dir = dirname(dir);
  }
}

function isPathSpec(name: string): boolean {
  return name.startsWith('./') || name.startsWith('../') || isAbsolute(name);
}

/** Where to look, in the loader's order: the config dir, the working directory, then next to the gateway itself. */
function locate(spec: string, bases: string[]): string | undefined {
  if (isPathSpec(spec)) {
    for (const base of bases.slice(0, 2)) {
      const full = resolve(base, spec);
      for (const path of [full, `${full}.js`]) if (existsSync(path)) return nearestPackageJson(path);
    }
    return undefined;
  }
  for (const candidate of candidateNames(spec)) {
    for (const base of bases) {
      const found = findPackageDir(candidate, base);
      if (found) return join(found, 'package.json');
    }
  }
  return undefined;
}

export function listPlugins(options: {
  firstParty: readonly string[];
  configured: readonly PluginSpec[];
  /** `store.backend`: listed as a package too when no plugin above contributes a store of that id (or `memory`). */
  storeBackend?: string;
  configDir: string;
  cwd?: string;
  /** Where the first-party packages resolve from (the CLI's own folder), after the config dir and the working directory. */
  firstPartyDir: string;
}): ListedPlugin[] {
  const bases = [options.configDir, options.cwd ?? process.cwd(), options.firstPartyDir];
  const specs: Array<{ spec: string; source: ListedPlugin['source'] }> = [
    ...options.firstParty.map((spec) => ({ spec, source: 'first-party' as const })),
    ...options.configured.map((entry) => ({ spec: Array.isArray(entry) ? entry[0] : entry, source: 'config' as const })),
  ];
  const listed = specs.map(({ spec, source }) => manifestOf(spec, source, bases));
  const backend = options.storeBackend;
  const storeIds = new Set(['memory', ...listed.flatMap((p) => p.contributes.filter((c) => c.kind === 'store').map((c) => c.id))]);
  // The gateway loads such a backend by package name (openStoreBackend), so it is one of the plugins it runs.
  if (backend && !storeIds.has(backend) && !listed.some((p) => p.spec === backend || p.name === backend))
    listed.push(manifestOf(backend, 'store.backend', bases));
  return listed;
}

/** One plugin's manifest, as far as its package.json tells (no plugin code runs). */
function manifestOf(spec: string, source: ListedPlugin['source'], bases: string[]): ListedPlugin {
  const file = locate(spec, bases);
  if (!file) return { spec, source, contributes: [], problem: `not installed: npm install ${isPathSpec(spec) ? spec : candidateNames(spec).at(-1)}` };
  let pkg: PackageJson;
  try {
    pkg = JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
  } catch (err) {
    return { spec, source, contributes: [], path: dirname(file), problem: `unreadable package.json: ${(err as Error).message}` };
  }
  const listed: ListedPlugin = {
    spec,
    source,
    name: pkg.name,
    version: pkg.version,
    api: pkg.hookwise?.api,
    contributes: pkg.hookwise?.contributes ?? [],
    path: dirname(file),
  };
  if (!pkg.hookwise) listed.problem = 'package.json has no "hookwise" field, so what it contributes is unknown until it loads';
  else if (Number(pkg.hookwise.api) !== PLUGIN_API_VERSION) {
    listed.problem = `needs plugin API ${String(pkg.hookwise.api)}, this Hookwise provides plugin API ${PLUGIN_API_VERSION}`;
  }
  return listed;
}

/**
 * The names a first-party contribution answers to: its id and the aliases its plugin's manifest declares (the
 * SPEC's stand-ins, e.g. `codehost_a` for `github`), so the CLI never declares an alias of its own.
 */
export function namesOf(packageName: string, kind: string, id: string): string[] {
  try {
    const manifest = JSON.parse(readFileSync(require.resolve(`${packageName}/package.json`), 'utf8')) as {
      hookwise?: { contributes?: Array<{ kind: string; id: string; aliases?: string[] }> };
    };
    const entry = manifest.hookwise?.contributes?.find((c) => c.kind === kind && c.id === id);
    return [id, ...(entry?.aliases ?? [])];
  } catch {
    return [id];
  }
}
