// The plugin object the gateway loads: one deliverer, wechat (alias platform_14).
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { officialAccountPlatform } from './official-account';

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [officialAccountPlatform],
});
