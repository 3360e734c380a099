// @hookwise/plugin-agent-anthropic: the `anthropic` agent runner on the Messages API, with native tool use.
export { default, anthropicRunner } from './plugin';
export { createAnthropicRunner, type AnthropicRunnerDeps } from './anthropic-runner';
export { anthropicOptionsSchema, type AnthropicRunnerOptions } from './options';
export { ANTHROPIC_VERSION, MessagesClient } from './messages-client';
export type { MessageParam, MessagesRequest, MessagesResponse, ResponseBlock, ToolResultBlock, ToolUseBlock } from './messages-wire';
