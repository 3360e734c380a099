// The plugin object the gateway loads: one deliverer, homeassistant (alias platform_09).
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { homeAssistantPlatform } from './homeassistant';

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [homeAssistantPlatform],
});
