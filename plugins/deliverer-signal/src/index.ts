// The plugin object the gateway loads (its name, version and API from package.json): one deliverer, signal.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { signalPlatform } from './signal';

export * from './signal';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [signalPlatform] });
