// @hookwise/plugin-agent-anthropic: the plugin object (its name, version and API from package.json) and the `anthropic` agent runner on the Messages API, with native tool use.
import { definePlugin, type AgentContribution, type PluginPackageJson } from '@hookwise/core';
import { createAnthropicRunner } from './anthropic-runner';
import { anthropicOptionsSchema, type AnthropicRunnerOptions } from './options';

export { createAnthropicRunner, type AnthropicRunnerDeps } from './anthropic-runner';
export { anthropicOptionsSchema, type AnthropicRunnerOptions } from './options';
export { ANTHROPIC_VERSION, MessagesClient } from './messages-client';
export type { MessageParam, MessagesRequest, MessagesResponse, ResponseBlock, ToolResultBlock, ToolUseBlock } from './messages-wire';

export const anthropicRunner: AgentContribution<AnthropicRunnerOptions> = {
  kind: 'agent',
  id: 'anthropic',
  description: "Anthropic Messages API, with native tool use: the terminal tool and MCP servers' tools.",
  optionsSchema: anthropicOptionsSchema,
  create: (options, ctx) => createAnthropicRunner(options, ctx),
};

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [anthropicRunner] });
