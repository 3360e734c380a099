// The plugin object the gateway loads (its name, version and API from package.json): one deliverer, bluebubbles.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { blueBubblesPlatform } from './bluebubbles';

export * from './bluebubbles';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [blueBubblesPlatform] });
