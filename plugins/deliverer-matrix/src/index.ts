// The plugin object the gateway loads (its name, version and API from package.json): one deliverer, matrix.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { matrixPlatform } from './matrix';

export * from './matrix';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [matrixPlatform] });
