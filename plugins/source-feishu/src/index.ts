// @hookwise/plugin-source-feishu: Receives feishu webhooks. The plugin object (its name, version and API from package.json) and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { feishuSource } from './feishu';

export * from './feishu';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [feishuSource] });
