// The plugin object the gateway loads: one deliverer, matrix (alias platform_07).
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { clientServerPlatform } from './client-server-api';

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [clientServerPlatform],
});
