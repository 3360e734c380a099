// The plugin object the gateway loads: one deliverer, platform_06.
import { definePlugin } from '@hookwise/core';
import { cloudApiPlatform } from './cloud-api';

export default definePlugin({
  meta: { name: '@hookwise/plugin-deliverer-platform-06', version: '0.1.0', api: 1 },
  contributes: [cloudApiPlatform],
});
