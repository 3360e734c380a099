// The plugin object the gateway loads: one deliverer, platform_15.
import { definePlugin } from '@hookwise/core';
import { serverApiPlatform } from './server-api';

export default definePlugin({
  meta: { name: '@hookwise/plugin-deliverer-platform-15', version: '0.1.0', api: 1 },
  contributes: [serverApiPlatform],
});
