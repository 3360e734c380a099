// The plugin object the gateway loads: one deliverer, wecom (alias platform_13).
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { wecomPlatform } from './wecom';

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [wecomPlatform],
});
