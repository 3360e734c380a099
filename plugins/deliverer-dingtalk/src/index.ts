// The plugin object the gateway loads (its name, version and API from package.json): one deliverer, dingtalk.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { dingtalkPlatform } from './dingtalk';

export * from './dingtalk';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [dingtalkPlatform] });
