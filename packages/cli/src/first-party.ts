// The first-party plugins: what the hookwise distribution loads by default, before the config's own `plugins:`. The
// list is this package's dependencies on plugin and store packages (package.json), so that adding a plugin is one
// dependency line: installing Hookwise installs it and starting a gateway loads it. @hookwise/gateway depends on no
// plugin; they resolve from here wherever the CLI is installed.
import { loadPlugins, type LoadedPlugin } from '@hookwise/gateway';

const ownPackage = require('../package.json') as { dependencies?: Record<string, string> };

export const FIRST_PARTY_PLUGINS: readonly string[] = Object.keys(ownPackage.dependencies ?? {})
  .filter((name) => /^@hookwise\/(plugin-|store-)/.test(name))
  .sort();

/** Where the first-party packages are looked up: this package's own folder (Node walks up its node_modules). */
export const FIRST_PARTY_DIR: string = __dirname;

/**
 * The first-party plugins loaded, ready for openGateway's `firstParty` (or the server's startGateway). Resolved
 * from this package with its own `require`, never from the config dir: a config dir cannot replace them. Loaded on
 * each call (Node caches the modules), so a command that opens no gateway pays nothing.
 */
export function loadFirstPartyPlugins(): Promise<LoadedPlugin[]> {
  return loadPlugins(FIRST_PARTY_PLUGINS, { configDir: FIRST_PARTY_DIR, cwd: FIRST_PARTY_DIR, requireFn: require });
}
