// The plugin object the gateway loads: one deliverer, platform_09.
import { definePlugin } from '@hookwise/core';
import { restApiPlatform } from './rest-api';

export default definePlugin({
  meta: { name: '@hookwise/plugin-deliverer-platform-09', version: '0.1.0', api: 1 },
  contributes: [restApiPlatform],
});
