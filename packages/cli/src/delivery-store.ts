// Opens the configured store for the `deliveries` commands and finds a job by delivery id (or job id).
import { HookwiseError, type Job, type Store } from '@hookwise/core';
import { createLogger, loadConfig, openConfiguredStore } from '@hookwise/gateway';
import { configDirFrom } from './config-dir';

/** Runs `use` with the store the gateway uses (sqlite file, Redis or a third-party store), closing it afterwards. */
export async function withDeliveryStore<T>(configDirFlag: string | undefined, use: (store: Store) => Promise<T>): Promise<T> {
  const loaded = loadConfig({ configDir: configDirFrom(configDirFlag) });
  if (loaded.config.store.backend === 'memory') {
    throw new HookwiseError('HW_E_STORE', 'store.backend is memory: deliveries live only inside the running gateway and are gone when it stops; use sqlite (the default) or redis to inspect them');
  }
  // Opened as the gateway opens it (openGateway's store step), so a store package named by store.backend works too.
  const opened = await openConfiguredStore(loaded, { logger: createLogger({ level: 'warn', stream: process.stderr }) });
  try {
    return await use(opened.store);
  } finally {
    await opened.close();
  }
}

export async function findDelivery(store: Store, id: string): Promise<Job> {
  const job = (await store.jobs.findByDeliveryId(id)) ?? (await store.jobs.get(id));
  if (!job) throw new HookwiseError('HW_E_STORE', `no delivery '${id}' in the store: see \`hookwise deliveries list\` (done jobs are kept for 7 days)`);
  return job;
}

export function isoTime(ms: number | undefined): string {
  return ms === undefined ? '-' : new Date(ms).toISOString();
}
