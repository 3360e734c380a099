// Resolves and loads plugin packages named in config; every failure is collected and reported together.
import { isAbsolute, resolve } from 'node:path';
import { HookwiseConfigError, errorMessage } from '@hookwise/core';
import { OLDEST_PLUGIN_API_VERSION, PLUGIN_API_VERSION, isHookwisePlugin, type HookwisePlugin } from '@hookwise/core';
import type { PluginSpec } from './config/schema';

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
  /** Module loader; tests and bundlers may pass their own. */
  requireFn?: NodeJS.Require;
}

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

function resolveSpec(name: string, opts: LoadPluginsOptions, req: NodeJS.Require): { path?: string; tried: string[] } {
  const cwd = opts.cwd ?? process.cwd();
  const tried: string[] = [];
  if (isPathSpec(name)) {
    for (const base of [opts.configDir, cwd]) {
      const full = resolve(base, name);
      tried.push(full);
      try {
        return { path: req.resolve(full), tried };
      } catch {
        /* next */
      }
    }
    return { tried };
  }
  for (const candidate of candidateNames(name)) {
    for (const base of [opts.configDir, cwd]) {
      tried.push(`${candidate} (from ${base})`);
      try {
        return { path: req.resolve(candidate, { paths: [base] }), tried };
      } catch {
        /* next */
      }
    }
    tried.push(`${candidate} (bundled)`);
    try {
      return { path: req.resolve(candidate), tried };
    } catch {
      /* next */
    }
  }
  return { tried };
}

/** Checks a module's export and returns the plugin or a problem description. */
export function pluginFromModule(mod: unknown, source: string): HookwisePlugin | string {
  const candidate = (mod as { default?: unknown })?.default ?? mod;
  if (!isHookwisePlugin(candidate)) {
    return `${source} does not export a Hookwise plugin: default-export definePlugin({ meta, contributes }) from @hookwise/core`;
  }
  if (!(candidate.meta.api >= OLDEST_PLUGIN_API_VERSION && candidate.meta.api <= PLUGIN_API_VERSION)) {
    return `${candidate.meta.name}@${candidate.meta.version} needs plugin API ${candidate.meta.api}, this Hookwise provides plugin API ${OLDEST_PLUGIN_API_VERSION} to ${PLUGIN_API_VERSION}`;
  }
  return candidate;
}

export function loadPlugins(specs: readonly PluginSpec[], opts: LoadPluginsOptions): LoadedPlugin[] {
  const req = opts.requireFn ?? require;
  const problems: string[] = [];
  const loaded: LoadedPlugin[] = [];
  for (const spec of specs) {
    const [name, options] = Array.isArray(spec) ? [spec[0], spec[1] ?? {}] : [spec, {}];
    const { path, tried } = resolveSpec(name, opts, req);
    if (!path) {
      problems.push(`plugin '${name}' was not found; tried:\n      ${tried.join('\n      ')}\n    install it (npm install ${candidateNames(name).at(-1)}) or fix the name in plugins:`);
      continue;
    }
    let mod: unknown;
    try {
      mod = req(path);
    } catch (err) {
      problems.push(`plugin '${name}' (${path}) threw while loading: ${errorMessage(err)}`);
      continue;
    }
    const plugin = pluginFromModule(mod, `plugin '${name}' (${path})`);
    if (typeof plugin === 'string') problems.push(plugin);
    else loaded.push({ plugin, source: name, options });
  }
  if (problems.length) throw new HookwiseConfigError(problems, 'plugins could not be loaded');
  return loaded;
}
