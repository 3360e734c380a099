// The route's actions for a preset's CLI. When a route lists `actions:`, the gateway opens a job channel
// for the run and names it in the run's environment (HOOKWISE_JOB_CHANNEL, HOOKWISE_JOB_TOKEN, HOOKWISE_JOB_ACTIONS),
// which the sandbox adds to every process it plans. The API runners connect to it by themselves; an agent CLI needs
// to be told, with its own MCP configuration. Claude Code takes `--mcp-config <file>` (the .mcp.json format:
// `{"mcpServers": {"<name>": {"type": "http", "url", "headers"}}}`) and runs MCP tools in print mode only when they
// are allowed (`--allowedTools mcp__<name>__*`, documented in its permission rules). Codex takes the server as
// config overrides (`-c mcp_servers.<name>.url=...`, config-reference: streamable HTTP servers), the bearer token
// from a variable it names (`bearer_token_env_var`: HOOKWISE_JOB_TOKEN, already in the run's environment), and runs
// its tools without asking with `default_tools_approval_mode = "approve"` (exec mode has nobody to ask). `required`
// makes a channel Codex cannot reach fail the run (retried) instead of letting the model go on without the tools:
// a run of a route with actions that cannot act has not done its job.
//
// The token never goes in argv: a command line is readable by every process that can list processes. Claude Code's
// gets a 0600 file in the run's work dir, removed when the run ends (the token is void then anyway).
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentSandbox } from '@hookwise/core';
import type { PresetName } from './preset-name';
import { tomlString } from './toml-string';

/** The MCP server name the channel's tools appear under in the CLI (`mcp__hookwise__github_add_labels`, ...). */
export const CHANNEL_SERVER = 'hookwise';

/** The channel of one run as the gateway put it in the run's environment, when the route lists actions. */
export interface RunChannel {
  url: string;
  token: string;
  /** The offered actions, comma-separated (e.g. `github.add_labels,github.review`). */
  actions: string;
}

/** The run's channel, read from what the sandbox plans for a process; undefined when the route lists no actions. */
export function runChannelOf(sandbox: AgentSandbox | undefined, env: NodeJS.ProcessEnv = {}): RunChannel | undefined {
  const planned = sandbox ? sandbox.plan('true', [], {}).env : env;
  const url = planned.HOOKWISE_JOB_CHANNEL;
  const token = planned.HOOKWISE_JOB_TOKEN;
  const actions = planned.HOOKWISE_JOB_ACTIONS;
  return url && token && actions ? { url, token, actions } : undefined;
}

/** Claude Code's MCP configuration naming the channel as a streamable HTTP server. */
export function claudeMcpConfig(channel: RunChannel): unknown {
  return { mcpServers: { [CHANNEL_SERVER]: { type: 'http', url: channel.url, headers: { Authorization: `Bearer ${channel.token}` } } } };
}

/** What a run adds to the CLI's argv for its actions, and what to remove after the run. */
export interface ChannelArgs {
  args: string[];
  close(): Promise<void>;
}

/** Codex's overrides naming the channel; the token stays in HOOKWISE_JOB_TOKEN. */
export function codexMcpArgs(channel: RunChannel): string[] {
  const server = `mcp_servers.${CHANNEL_SERVER}`;
  return [
    ...['-c', `${server}.url=${tomlString(channel.url)}`],
    ...['-c', `${server}.bearer_token_env_var=${tomlString('HOOKWISE_JOB_TOKEN')}`],
    ...['-c', `${server}.default_tools_approval_mode=${tomlString('approve')}`],
    ...['-c', `${server}.required=true`],
  ];
}

/**
 * The arguments that give a preset's CLI the run's actions, after writing what they name into `workDir`; undefined
 * for a preset with no way to take them yet (gemini, opencode: their MCP settings live in config files of their
 * own, which the run's environment cannot reach), or when the route lists no actions.
 */
export async function presetChannelArgs(preset: PresetName, channel: RunChannel | undefined, workDir: string): Promise<ChannelArgs | undefined> {
  if (!channel) return undefined;
  if (preset === 'codex') return { args: codexMcpArgs(channel), close: async () => undefined };
  if (preset !== 'claude') return undefined;
  // A name of its own per run: several runs may share one agent.cwd.
  const file = join(workDir, `.hookwise-mcp-${randomBytes(6).toString('hex')}.json`);
  await writeFile(file, `${JSON.stringify(claudeMcpConfig(channel), null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return {
    args: ['--mcp-config', file, '--allowedTools', `mcp__${CHANNEL_SERVER}__*`],
    close: () => rm(file, { force: true }),
  };
}
