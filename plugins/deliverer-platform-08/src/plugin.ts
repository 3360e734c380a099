// The plugin object the gateway loads: one deliverer, platform_08.
import { definePlugin } from '@hookwise/core';
import { postsApiPlatform } from './posts-api';

export default definePlugin({
  meta: { name: '@hookwise/plugin-deliverer-platform-08', version: '0.1.0', api: 1 },
  contributes: [postsApiPlatform],
});
