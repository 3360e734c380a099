// A gateway assembled from the config dir the way `gateway run` does it, but never started: the CLI asks it
// which deliverers and skills exist and whether a route could serve, so the checks are the server's own.
import { DirectorySkillLibrary, Gateway, createLogger, createMemoryStore, loadConfig, loadPlugins, type LoadedConfig } from '@hookwise/gateway';

export interface OfflineGateway {
  loaded: LoadedConfig;
  gateway: Gateway;
  skills: DirectorySkillLibrary;
  close(): Promise<void>;
}

/** Loads config, plugins (first-party + `plugins:`) and skills; warnings go to stderr, never to stdout. */
export function openOfflineGateway(configDir: string): OfflineGateway {
  // Loaded here, not at the top: importing this module (every `webhook subscribe` start) stays cheap.
  const { FIRST_PARTY_PLUGINS, skillDirs } = require('@hookwise/server') as typeof import('@hookwise/server');
  const loaded = loadConfig({ configDir });
  const { config } = loaded;
  const logger = createLogger({ level: 'warn', stream: process.stderr });
  const plugins = loadPlugins([...FIRST_PARTY_PLUGINS, ...config.plugins], { configDir: loaded.configDir, requireFn: require });
  const skills = new DirectorySkillLibrary(skillDirs(config, loaded.configDir));
  const gateway = new Gateway({ config, configDir: loaded.configDir, env: loaded.env, plugins, skills, logger, store: createMemoryStore() });
  return { loaded, gateway, skills, close: () => gateway.store.close() };
}
