import { definePlugin, type AgentContribution, type PluginPackageJson } from '@hookwise/core';
import { createCommandRunner } from './command-runner';
import { commandOptionsSchema, type CommandRunnerOptions } from './options';

export { createCommandRunner } from './command-runner';
export { commandOptionsSchema, PROMPT_PLACEHOLDER, type CommandRunnerOptions } from './options';
export { composePrompt, SKILLS_SEPARATOR } from './prompt-layout';
export { CHANNEL_SERVER, claudeMcpConfig, presetChannelArgs, runChannelOf, type ChannelArgs, type RunChannel } from './preset-actions';
export { PRESET_SANDBOX, presetSandboxNeeds, type PresetSandbox } from './preset-sandbox';
export { PRESETS, commandPreset, presetRun, tomlString, type CommandPreset } from './presets';
export type { PresetName } from './preset-name';

export const commandRunner: AgentContribution<CommandRunnerOptions> = {
  kind: 'agent',
  id: 'command',
  description: 'Runs an agent CLI as a child process; the prompt goes to stdin or into a {prompt} argument.',
  optionsSchema: commandOptionsSchema,
  create: (options, ctx) => createCommandRunner(options, ctx),
};

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [commandRunner] });
