// The plugin object the gateway loads; its name, version and plugin API come from package.json.
import { definePlugin, type AgentContribution, type PluginPackageJson } from '@hookwise/core';
import { createAnthropicRunner } from './anthropic-runner';
import { anthropicOptionsSchema, type AnthropicRunnerOptions } from './options';

export const anthropicRunner: AgentContribution<AnthropicRunnerOptions> = {
  kind: 'agent',
  id: 'anthropic',
  description: "Anthropic Messages API, with native tool use: the terminal tool and MCP servers' tools.",
  optionsSchema: anthropicOptionsSchema,
  create: (options, ctx) => createAnthropicRunner(options, ctx),
};

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [anthropicRunner] });
