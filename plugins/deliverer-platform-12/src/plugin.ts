// The plugin object the gateway loads: one deliverer, platform_12.
import { definePlugin } from '@hookwise/core';
import { openPlatform } from './open-platform';

export default definePlugin({
  meta: { name: '@hookwise/plugin-deliverer-platform-12', version: '0.1.0', api: 1 },
  contributes: [openPlatform],
});
