// @hookwise/agent-kit: what an agent-runner author needs (prompt layout, token usage, the tool loop with the
// terminal tool and MCP servers, model requests with retries and redaction). The only kit package that brings the
// MCP SDK, so source and deliverer plugins, which use @hookwise/kit, never install it. Values are the ones the
// first-party runners use; types are the ones those values' signatures name.
export { UNTRUSTED_INPUT_NOTE, buildSystemPrompt, buildSystemPromptParts, formatSkills, type SystemPromptTools } from './agent-prompt';
export { AgentToolbox, type AgentToolDefinition, type AgentToolHandler, type ToolOutcome } from './agent-tools';
export { addUsage, sumCounts, tokenCount, usageFromAnthropic, usageFromOpenAI, usageOrUndefined, type TokenUsage } from './agent-usage';
export { mcpServersSchema, type McpServerOptions, type McpServers } from './mcp-client';
export {
  modelClientOptions,
  postModelRequest,
  retryAfterSecondsOf,
  type ModelClientOptions,
  type ModelErrorResponse,
  type ModelRequestOptions,
  type ModelRunnerOptions,
} from './model-request';
export { conversationTurn, type ConversationTurn } from './conversation-turn';
export { RunnerTools, type RunnerToolOptions } from './runner-tools';
export { fenceLines, fenceUntrusted } from './untrusted-fence';
export {
  refusal,
  runTerminalCommand,
  terminalOptionsSchema,
  terminalToolDefinition,
  type TerminalOptions,
  type TerminalRunOptions,
  type TerminalSettings,
} from './terminal-tool';
