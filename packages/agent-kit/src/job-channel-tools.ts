// The run's job channel as an MCP server: when the route lists actions, the gateway puts the channel's
// URL, the run's token and the offered actions in the run's environment (HOOKWISE_JOB_CHANNEL,
// HOOKWISE_JOB_TOKEN, HOOKWISE_JOB_ACTIONS), which the run's sandbox adds to every process it plans. An API
// runner runs in the gateway's process, so it reads them from a plan of the sandbox and connects to the channel
// like to any streamable HTTP server of `mcp_servers:`, for this run only.
import type { AgentSandbox } from '@hookwise/core';
import type { McpServerOptions } from './mcp-client';

/** The name the channel's tools are offered under (`hookwise__github_add_labels`, ...). */
export const JOB_CHANNEL_SERVER = 'hookwise';

/** The channel's MCP server of this run, when its route lists actions; undefined otherwise. */
export function jobChannelServer(sandbox: AgentSandbox | undefined): McpServerOptions | undefined {
  if (!sandbox) return undefined;
  const env = sandbox.plan('true', [], {}).env;
  const url = env.HOOKWISE_JOB_CHANNEL;
  const token = env.HOOKWISE_JOB_TOKEN;
  if (!url || !token || !env.HOOKWISE_JOB_ACTIONS) return undefined;
  return { name: JOB_CHANNEL_SERVER, url, headers: { Authorization: `Bearer ${token}` }, timeout_seconds: 300, max_output_bytes: 16384 };
}
