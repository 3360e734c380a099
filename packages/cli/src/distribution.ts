// What the hookwise distribution tells the gateway library besides its plugins (first-party.ts): the sources a route
// that pins none accepts, and where its own CLI is installed, so that an agent run's sandbox can read it (the
// agent's `hookwise webhook subscribe`). The library names no sender and resolves no package: these come from here.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import type { LoadedPlugin, OpenGatewayOptions } from '@hookwise/gateway';
import { loadFirstPartyPlugins } from './first-party';

/** The SPEC's three styles, accepted by routes that pin no source, in the order their headers are read. */
export const DEFAULT_SOURCES: readonly string[] = ['github', 'gitlab', 'generic'];

let cached: { dir: string | undefined } | undefined;

/**
 * The directory the `hookwise` CLI runs from with its dependencies: the outermost node_modules of an npm install
 * (global or a project's: the CLI's dependencies may be hoisted anywhere in it), else, in a source checkout, the
 * workspace root (its node_modules link to the packages beside them).
 */
export function agentCliInstallation(): string | undefined {
  cached ??= { dir: findCliInstallation() };
  return cached.dir;
}

function findCliInstallation(): string | undefined {
  let pkg: string;
  try {
    // This package's own folder (src/ or dist/ is one level down), as Node resolves it.
    pkg = realpathSync(join(__dirname, '..'));
  } catch {
    return undefined;
  }
  const marker = `${sep}node_modules${sep}`;
  const at = pkg.indexOf(marker);
  if (at >= 0) return pkg.slice(0, at + marker.length - 1);
  for (let dir = dirname(pkg); dir !== dirname(dir); dir = dirname(dir)) {
    if (isWorkspaceRoot(dir)) return dir;
  }
  return pkg;
}

function isWorkspaceRoot(dir: string): boolean {
  const file = join(dir, 'package.json');
  if (!existsSync(file) || !existsSync(join(dir, 'node_modules'))) return false;
  try {
    const { workspaces } = JSON.parse(readFileSync(file, 'utf8')) as { workspaces?: unknown };
    return typeof workspaces === 'object' && workspaces !== null;
  } catch {
    return false;
  }
}

/** The distribution's part of openGateway's (or the server's startGateway's) options. */
export interface DistributionOptions {
  firstParty: LoadedPlugin[];
  defaultSources: readonly string[];
  agentCli?: OpenGatewayOptions['agentCli'];
}

/** The first-party plugins loaded, the default sources and the CLI's installation: a gateway as `hookwise` opens it. */
export async function distributionOptions(): Promise<DistributionOptions> {
  const dir = agentCliInstallation();
  return { firstParty: await loadFirstPartyPlugins(), defaultSources: DEFAULT_SOURCES, ...(dir ? { agentCli: { dir } } : {}) };
}
