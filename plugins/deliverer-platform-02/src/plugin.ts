// The plugin object the gateway loads: one deliverer, discord (alias platform_02).
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { channelApiPlatform } from './channel-api';

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [channelApiPlatform],
});
