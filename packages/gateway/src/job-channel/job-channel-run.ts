// What one agent run gets of its per-job channel (job-channel.ts): the channel's variables in the
// environment of every process the run starts (the command runner, each terminal command, stdio MCP servers),
// the channel's loopback address in the run's sandbox network (reached through the egress proxy), and the
// distribution's agent CLI readable inside (GatewayOptions.agentCli), so the agent's `hookwise webhook subscribe`
// can start at all.
import type { AgentSandbox, AgentSandboxNeeds } from '@hookwise/core';
import type { JobChannel } from './job-channel';

/**
 * The runner's needs plus the channel's host and its read-only paths (the agent CLI's installation), unless a path
 * overlaps what the sandbox hides (an embedding app whose config dir is its own project folder): the run then goes
 * on without it rather than failing.
 */
export function channelNeeds(needs: AgentSandboxNeeds | undefined, channel: JobChannel, hidden: (path: string) => boolean = () => false): AgentSandboxNeeds {
  return {
    ...needs,
    network: [...(needs?.network ?? []), channel.network],
    readOnly: [...(needs?.readOnly ?? []), ...channel.readOnly.filter((path) => !hidden(path))],
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
