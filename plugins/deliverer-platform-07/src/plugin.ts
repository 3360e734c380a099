// The plugin object the gateway loads: one deliverer, platform_07.
import { definePlugin } from '@hookwise/core';
import { clientServerPlatform } from './client-server-api';

export default definePlugin({
  meta: { name: '@hookwise/plugin-deliverer-platform-07', version: '0.1.0', api: 1 },
  contributes: [clientServerPlatform],
});
