// The plugin object the gateway loads: one deliverer, platform_13.
import { definePlugin } from '@hookwise/core';
import { workApiPlatform } from './work-api';

export default definePlugin({
  meta: { name: '@hookwise/plugin-deliverer-platform-13', version: '0.1.0', api: 1 },
  contributes: [workApiPlatform],
});
