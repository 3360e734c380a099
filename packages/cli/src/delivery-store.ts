// Opens the configured store for the `deliveries` commands and finds a job by delivery id (or job id).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { HookwiseError, type Job, type Store } from '@hookwise/core';
import { createLogger, openConfiguredStore, type HookwiseConfig } from '@hookwise/gateway';
import { loadFirstPartyPlugins } from './first-party';
import { loadChosen, type ProfileChoice } from './profile-choice';

/**
 * Whether the configured store may hold something to read: not a memory store (it lives inside the gateway), not a
 * SQLite file that does not exist yet (opening it would create it: a listing must not leave a store behind).
 */
export function storeHasData(config: HookwiseConfig, configDir: string): boolean {
  const { store } = config;
  if (store.backend === 'memory') return false;
  // resolve, not join: a profile's store path is absolute already (beside the global file, config/profiles.ts).
  if (store.backend === 'sqlite') return existsSync(resolve(configDir, typeof store.path === 'string' ? store.path : 'hookwise.sqlite'));
  return true;
}

/**
 * Runs `use` with the store the gateway uses for the chosen profile (sqlite file, Redis or a third-party store),
 * closing it afterwards.
 */
export async function withDeliveryStore<T>(choice: ProfileChoice, use: (store: Store) => Promise<T>): Promise<T> {
  const loaded = loadChosen(choice);
  if (loaded.config.store.backend === 'memory') {
    throw new HookwiseError(
      'HW_E_STORE',
      'store.backend is memory: deliveries live only inside the running gateway and are gone when it stops; use sqlite (the default) or redis to inspect them',
    );
  }
  // Opened as the gateway opens it (openGateway's store step), so a store package named by store.backend works too.
  const opened = await openConfiguredStore(loaded, {
    firstParty: await loadFirstPartyPlugins(),
    logger: createLogger({ level: 'warn', stream: process.stderr }),
  });
  try {
    return await use(opened.store);
  } finally {
    await opened.close();
  }
}

/** How many recent jobs a prefix is looked up in: the ones `deliveries list` could show, and many more. */
const PREFIX_SCAN_LIMIT = 10_000;

/**
 * A job by its delivery id or job id, whole or by a unique prefix (as long ids are typed by hand): an exact match
 * wins, a prefix that fits several deliveries is refused with the candidates.
 */
export async function findDelivery(store: Store, id: string): Promise<Job> {
  const exact = (await store.jobs.findByDeliveryId(id)) ?? (await store.jobs.get(id));
  if (exact) return exact;
  const matches =
    id.length >= 4 ? (await store.jobs.list({ limit: PREFIX_SCAN_LIMIT })).filter((job) => job.deliveryId.startsWith(id) || job.id.startsWith(id)) : [];
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) {
    const shown = matches.slice(0, 5).map((job) => job.deliveryId);
    throw new HookwiseError(
      'HW_E_STORE',
      `'${id}' is the start of ${matches.length} delivery ids (${shown.join(', ')}${matches.length > shown.length ? ', ...' : ''}): give more of it`,
    );
  }
  throw new HookwiseError(
    'HW_E_STORE',
    `no delivery '${id}' in the store: see \`hookwise deliveries list\` (done jobs are kept for 7 days; an id may be shortened to a unique prefix of 4 or more characters)`,
  );
}

export function isoTime(ms: number | undefined): string {
  return ms === undefined ? '-' : new Date(ms).toISOString();
}
