// The plugin object the gateway loads: one deliverer, sms (alias platform_05).
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { smsPlatform } from './sms';

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [smsPlatform],
});
