import { definePlugin, type AgentContribution, type PluginPackageJson } from '@hookwise/core';
import { terminalToolDefinition as kitTerminalTool } from '@hookwise/agent-kit';
import { createOpenAIRunner, functionTool } from './openai-runner';
import { openaiOptionsSchema, type OpenAIRunnerOptions } from './options';

export { createOpenAIRunner, functionTool, type OpenAIRunnerDeps } from './openai-runner';
export { openaiOptionsSchema, type OpenAIRunnerOptions, type TerminalOptions } from './options';
export { ChatCompletionsClient } from './chat-client';
export type { ChatMessage, ChatRequest, ChatResponse, ToolCall } from './chat-wire';
// The terminal tool and the system prompt live in the kit (shared with the anthropic runner); kept here for importers.
export { buildSystemPrompt, refusal as terminalRefusal, runTerminalCommand } from '@hookwise/agent-kit';
/** The terminal tool as this runner sends it (a Chat Completions function tool). */
export const terminalToolDefinition = functionTool(kitTerminalTool);

export const openaiRunner: AgentContribution<OpenAIRunnerOptions> = {
  kind: 'agent',
  id: 'openai',
  description: "OpenAI-compatible Chat Completions client, with an optional terminal tool and MCP servers' tools.",
  optionsSchema: openaiOptionsSchema,
  create: (options, ctx) => createOpenAIRunner(options, ctx),
};

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [openaiRunner] });
