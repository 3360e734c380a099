// The plugin object the gateway loads (its name, version and API from package.json): one deliverer, wecom.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { wecomPlatform } from './wecom';

export * from './wecom';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [wecomPlatform] });
