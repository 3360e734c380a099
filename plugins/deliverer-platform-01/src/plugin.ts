// The plugin object the gateway loads: one deliverer, platform_01.
import { definePlugin } from '@hookwise/core';
import { botApiPlatform } from './bot-api';

export default definePlugin({
  meta: { name: '@hookwise/plugin-deliverer-platform-01', version: '0.1.0', api: 1 },
  contributes: [botApiPlatform],
});
