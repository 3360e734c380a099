// The plugin object the gateway loads (its name, version and API from package.json): the mcp-events source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { mcpEventsSource } from './mcp-events';

export * from './mcp-events';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [mcpEventsSource] });
