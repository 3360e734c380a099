// @hookwise/plugin-agent-anthropic: Anthropic Messages API agent runner with native tool use (terminal tool, MCP tools).
export { default } from './plugin';
export * from './anthropic';
