// The plugin object the gateway loads: one deliverer, platform_02.
import { definePlugin } from '@hookwise/core';
import { channelApiPlatform } from './channel-api';

export default definePlugin({
  meta: { name: '@hookwise/plugin-deliverer-platform-02', version: '0.1.0', api: 1 },
  contributes: [channelApiPlatform],
});
