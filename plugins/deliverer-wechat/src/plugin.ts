// The plugin object the gateway loads: one deliverer, wechat (alias platform_14).
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { wechatPlatform } from './wechat';

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [wechatPlatform],
});
