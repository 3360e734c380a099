// The plugin object the gateway loads (its name, version and API from package.json): one deliverer, homeassistant.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { homeAssistantPlatform } from './homeassistant';

export * from './homeassistant';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [homeAssistantPlatform] });
