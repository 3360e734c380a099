import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { createOpenAIRunner } from './openai-runner';
import { openaiOptionsSchema, type OpenAIRunnerOptions } from './options';

export { createOpenAIRunner, type OpenAIRunnerDeps } from './openai-runner';
export { openaiOptionsSchema, type OpenAIRunnerOptions, type TerminalOptions } from './options';
export { ChatCompletionsClient } from './chat-client';
export type { ChatMessage, ChatRequest, ChatResponse, ToolCall } from './chat-wire';
export { buildSystemPrompt } from './system-prompt';
export { refusal as terminalRefusal, runTerminalCommand, terminalToolDefinition } from './terminal-tool';

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [
    {
      kind: 'agent',
      id: 'openai',
      description: 'OpenAI-compatible Chat Completions client, with an optional terminal tool loop.',
      optionsSchema: openaiOptionsSchema,
      create: (options: OpenAIRunnerOptions, ctx) => createOpenAIRunner(options, ctx),
    },
  ],
});
