// The plugin object the gateway loads: one deliverer, slack (alias platform_03).
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { slackPlatform } from './slack';

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [slackPlatform],
});
