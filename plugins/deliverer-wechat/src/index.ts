// The plugin object the gateway loads (its name, version and API from package.json): one deliverer, wechat.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { wechatPlatform } from './wechat';

export * from './wechat';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [wechatPlatform] });
