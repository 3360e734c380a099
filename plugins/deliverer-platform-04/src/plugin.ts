// The plugin object the gateway loads: one deliverer, signal (alias platform_04).
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { jsonRpcDaemonPlatform } from './json-rpc-daemon';

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [jsonRpcDaemonPlatform],
});
