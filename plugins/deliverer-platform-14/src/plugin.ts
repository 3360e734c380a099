// The plugin object the gateway loads: one deliverer, platform_14.
import { definePlugin } from '@hookwise/core';
import { officialAccountPlatform } from './official-account';

export default definePlugin({
  meta: { name: '@hookwise/plugin-deliverer-platform-14', version: '0.1.0', api: 1 },
  contributes: [officialAccountPlatform],
});
