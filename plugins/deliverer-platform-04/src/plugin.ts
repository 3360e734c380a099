// The plugin object the gateway loads: one deliverer, platform_04.
import { definePlugin } from '@hookwise/core';
import { jsonRpcDaemonPlatform } from './json-rpc-daemon';

export default definePlugin({
  meta: { name: '@hookwise/plugin-deliverer-platform-04', version: '0.1.0', api: 1 },
  contributes: [jsonRpcDaemonPlatform],
});
