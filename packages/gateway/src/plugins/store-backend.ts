// Opens the store `store.backend` names: a registered `store` contribution (memory, sqlite, redis, or one a plugin
// of `plugins:` adds), else a package of that name loaded like a plugin, which must contribute a store.
import { HookwiseConfigError, errorMessage, wrapPluginError, type PluginContext, type Store, type StoreConfig, type StoreContribution } from '@hookwise/core';
// It lives with the plugins, not the stores: choosing a store is choosing a plugin's contribution, and stores/ then
// imports nothing from plugins/ (the built-ins import the memory store, so the other way round made a loop).
import { builtinPlugin } from './builtins';
import { loadPlugins, type LoadPluginsOptions, type LoadedPlugin } from './loader';
import { PluginRegistry, type CreateContext } from './registry';

/** Keys of the `store:` block the gateway itself reads; every other key belongs to the backend's optionsSchema. */
export const GATEWAY_STORE_KEYS: readonly string[] = ['backend', 'max_pending', 'lease_seconds', 'retention'];

export interface OpenBackendOptions {
  /** The `store:` block (defaults applied). */
  config: StoreConfig;
  /** Plugins already loaded (first-party and `plugins:`); the built-ins are added here. */
  plugins: readonly LoadedPlugin[];
  /** How a backend that is no registered id is loaded by package name. */
  load: LoadPluginsOptions;
  ctx: CreateContext;
}

export interface OpenedBackend {
  store: Store;
  /** `plugins`, plus the package `store.backend` named when it was loaded here (register it with the gateway too). */
  plugins: LoadedPlugin[];
  /** The store contribution's id and plugin, for the log. */
  id: string;
  pluginName: string;
}

/**
 * The store ids the hookwise command brings and the package each comes from. The gateway depends on neither (one is
 * a native build): a program that embeds it and keeps the default `sqlite` must install and pass the package.
 */
const DISTRIBUTED_STORES: Readonly<Record<string, string>> = { sqlite: '@hookwise/store-sqlite', redis: '@hookwise/store-redis' };

/** The problem when `store.backend` is one of those ids and no plugin given to the gateway contributes it. */
function missingStoreProblem(backend: string, pkg: string, known: string): string {
  const which = backend === 'sqlite' ? `'sqlite' (the default)` : `'${backend}'`;
  return (
    `store.backend is ${which}, but no plugin given to the gateway contributes that store (known: ${known}): ` +
    `the hookwise command loads ${pkg} itself; a program that embeds @hookwise/gateway installs ${pkg} and passes it ` +
    `to openGateway (firstParty or plugins), or sets store.backend: memory (jobs lost on restart)`
  );
}

const storeIdsOf = (loaded: LoadedPlugin): string[] => loaded.plugin.contributes.filter((c) => c.kind === 'store').map((c) => c.id);

/** Loads `store.backend` as a package; returns it, or it is already among `plugins` (same package name). */
async function loadBackendPackage(backend: string, known: string, opts: OpenBackendOptions): Promise<{ loaded: LoadedPlugin; isNew: boolean }> {
  let loaded: LoadedPlugin;
  try {
    [loaded] = await loadPlugins([backend], opts.load);
  } catch (err) {
    const listed = (err as Partial<HookwiseConfigError>).problems;
    const problems = Array.isArray(listed) ? listed : [errorMessage(err)];
    throw new HookwiseConfigError(
      problems.map((p) => `store.backend: '${backend}' is no store id (known: ${known}) and no store package that loads: ${p}`),
      'the store cannot be opened',
      'HW_E_STORE',
    );
  }
  const already = opts.plugins.find((p) => p.plugin.meta.name === loaded.plugin.meta.name);
  return already ? { loaded: already, isNew: false } : { loaded, isNew: true };
}

/** `store.retention` is the gateway's key, handed to every backend: `{ jobs_days: <days above 0> }` or absent. */
function retentionProblems(retention: unknown): string[] {
  if (retention === undefined) return [];
  const ok =
    typeof retention === 'object' &&
    retention !== null &&
    Object.keys(retention).every((key) => key === 'jobs_days') &&
    (((retention as { jobs_days?: unknown }).jobs_days ?? 1) as number) > 0 &&
    typeof ((retention as { jobs_days?: unknown }).jobs_days ?? 1) === 'number';
  return ok ? [] : [`store.retention must be { jobs_days: <days, above 0> } (got ${JSON.stringify(retention)}), e.g. retention: { jobs_days: 30 }`];
}

/** Finds the backend, validates its options (problems name `store.<key>`), and creates the store. */
export async function openStoreBackend(opts: OpenBackendOptions): Promise<OpenedBackend> {
  const backend = opts.config.backend;
  const retention = retentionProblems(opts.config.retention);
  if (retention.length) throw new HookwiseConfigError(retention, 'the store cannot be opened', 'HW_E_STORE');
  const builtins: LoadedPlugin = { plugin: builtinPlugin, source: 'built-in', options: {} };
  let plugins = [...opts.plugins];
  let registry = new PluginRegistry([builtins, ...plugins]);
  let id = backend;
  if (!registry.get('store', backend)) {
    const known = registry.ids('store').sort().join(', ');
    const pkg = DISTRIBUTED_STORES[backend];
    if (pkg) throw new HookwiseConfigError([missingStoreProblem(backend, pkg, known)], 'the store cannot be opened', 'HW_E_STORE');
    const { loaded, isNew } = await loadBackendPackage(backend, known, opts);
    const ids = storeIdsOf(loaded);
    if (ids.length !== 1) {
      const what = loaded.plugin.contributes.map((c) => `${c.kind}:${c.id}`).join(', ') || 'nothing';
      throw new HookwiseConfigError(
        [
          ids.length === 0
            ? `store.backend: ${loaded.plugin.meta.name} (loaded for '${backend}') contributes no store (it contributes ${what}); name a store package or a store id (${known})`
            : `store.backend: ${loaded.plugin.meta.name} contributes several stores (${ids.join(', ')}); add it to plugins: and set store.backend to one of those ids`,
        ],
        'the store cannot be opened',
        'HW_E_STORE',
      );
    }
    [id] = ids;
    if (isNew) {
      plugins = [...plugins, loaded];
      registry = new PluginRegistry([builtins, ...plugins]);
    }
  }
  const entry = registry.get('store', id)!;
  const own = Object.fromEntries(Object.entries(opts.config).filter(([key]) => !GATEWAY_STORE_KEYS.includes(key)));
  const { options, problems } = registry.validateOptions('store', id, own, 'store');
  if (problems.length) throw new HookwiseConfigError(problems, `store '${id}' is not configured correctly`, 'HW_E_STORE');
  const contribution = entry.contribution as StoreContribution;
  const ctx: PluginContext = { ...opts.ctx, logger: opts.ctx.logger.child({ plugin: entry.pluginName, id }) };
  let store: Store;
  try {
    store = await contribution.create({ ...opts.config, ...options, backend: id }, ctx);
  } catch (err) {
    throw wrapPluginError(err, { plugin: entry.pluginName, kind: 'store', id, method: 'create' });
  }
  // Not wrapped in the registry's error-naming proxy: accept() runs once per request, the queue's methods on every
  // lease, and store errors already say what failed (HW_E_STORE).
  return { store, plugins, id, pluginName: entry.pluginName };
}
