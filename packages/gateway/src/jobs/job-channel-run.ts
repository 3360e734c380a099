// What one agent run gets of its per-job channel (job-channel.ts, issue 29): the channel's variables in the
// environment of every process the run starts (the command runner, each terminal command, stdio MCP servers),
// the channel's loopback address in the run's sandbox network (reached through the egress proxy), and the
// `hookwise` CLI's installation readable inside, so the agent's `hookwise webhook subscribe` can start at all.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import type { AgentSandbox, AgentSandboxNeeds } from '@hookwise/core';
import type { JobChannel } from './job-channel';

/**
 * The runner's needs plus the channel's host and the CLI's installation (read-only), unless that installation
 * overlaps what the sandbox hides (an embedding app whose config dir is its own project folder): the run then
 * goes on without the CLI inside rather than failing.
 */
export function channelNeeds(needs: AgentSandboxNeeds | undefined, channel: JobChannel, hidden: (path: string) => boolean = () => false): AgentSandboxNeeds {
  const found = cliInstallation();
  const cli = found && !hidden(found) ? found : undefined;
  return {
    ...needs,
    network: [...(needs?.network ?? []), channel.network],
    readOnly: [...(needs?.readOnly ?? []), ...(cli ? [cli] : [])],
  };
}

/** The run's sandbox with the channel's variables added to every process it plans or starts. */
export function withChannelEnv(sandbox: AgentSandbox, channel: JobChannel): AgentSandbox {
  return {
    ...sandbox,
    plan: (command, args, env) => sandbox.plan(command, args, { ...env, ...channel.env }),
    spawn: (command, args, env, stdio) => sandbox.spawn(command, args, { ...env, ...channel.env }, stdio),
  };
}

let cached: { dir: string | undefined } | undefined;

/**
 * The directory the `hookwise` CLI runs from with its dependencies: the outermost node_modules of an npm install
 * (global or a project's: the CLI's dependencies may be hoisted anywhere in it), else, in a source checkout, the
 * workspace root (its node_modules link to the packages beside them). Undefined when the CLI is not installed
 * next to the gateway: a run then uses a `hookwise` the system paths hold, or none.
 */
export function cliInstallation(): string | undefined {
  cached ??= { dir: findCliInstallation() };
  return cached.dir;
}

function findCliInstallation(): string | undefined {
  let pkg: string;
  try {
    pkg = realpathSync(dirname(require.resolve('@hookwise/cli/package.json', { paths: [__dirname] })));
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
