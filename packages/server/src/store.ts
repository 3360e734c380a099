// Picks the store backend named by `store.backend`: memory (built in), sqlite or redis (their own packages).
import { HookwiseConfigError, errorMessage, type Store } from '@hookwise/core';
import { createMemoryStore, type HookwiseConfig } from '@hookwise/gateway';
import type { Logger } from 'winston';

const BACKEND_PACKAGES: Record<string, string> = {
  sqlite: '@hookwise/store-sqlite',
  redis: '@hookwise/store-redis',
};

type StoreFactory = (options: { config: HookwiseConfig['store']; configDir: string; logger: Logger }) => Promise<Store>;

export async function createStoreFor(config: HookwiseConfig, configDir: string, logger: Logger): Promise<Store> {
  const backend = config.store.backend;
  if (backend === 'memory') return createMemoryStore();
  const pkg = BACKEND_PACKAGES[backend];
  if (!pkg) throw new HookwiseConfigError([`store.backend: unknown backend '${backend}'; use memory, sqlite or redis`]);
  let factory: StoreFactory | undefined;
  try {
    factory = (require(pkg) as { createStore?: StoreFactory }).createStore;
  } catch (err) {
    throw new HookwiseConfigError([`store.backend: '${backend}' needs ${pkg}, which could not be loaded: ${errorMessage(err)}`]);
  }
  if (typeof factory !== 'function') throw new HookwiseConfigError([`store.backend: ${pkg} does not export createStore()`]);
  return factory({ config: config.store, configDir, logger });
}
