// The plugin object the gateway loads (its name, version and API from package.json): one deliverer, feishu.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { feishuPlatform } from './feishu';

export * from './feishu';
export * from './feishu-replies';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [feishuPlatform] });
