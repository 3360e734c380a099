// A gateway assembled by openGateway exactly as `gateway run` assembles it, but never started and on a memory
// store: the CLI asks it which deliverers and skills exist and whether a route could serve, so the checks are the
// running gateway's own.
import { createLogger, createMemoryStore, openGateway, type DirectorySkillLibrary, type Gateway, type LoadedConfig } from '@hookwise/gateway';
import { distributionOptions } from './distribution';
import { loadChosen, type ProfileChoice } from './profile-choice';

export interface OfflineGateway {
  loaded: LoadedConfig;
  gateway: Gateway;
  skills: DirectorySkillLibrary;
  close(): Promise<void>;
}

/**
 * Loads the chosen profile's config, plugins (first-party + `plugins:`) and skills; warnings go to stderr, never
 * to stdout.
 */
export async function openOfflineGateway(choice: ProfileChoice): Promise<OfflineGateway> {
  const opened = await openGateway(loadChosen(choice), {
    logger: createLogger({ level: 'warn', stream: process.stderr }),
    ...(await distributionOptions()),
    // The real store may be a file the running gateway holds, or a Redis: a check must not open it.
    store: createMemoryStore(),
    // The subscriptions file is what the command edits; its routes are checked one by one as they are written.
    routeSource: null,
  });
  return {
    loaded: opened.loaded,
    gateway: opened.gateway,
    skills: opened.skills,
    close: async () => {
      await opened.close(0);
    },
  };
}
