// The plugin object the gateway loads: one deliverer, platform_11.
import { definePlugin } from '@hookwise/core';
import { customRobotPlatform } from './custom-robot';

export default definePlugin({
  meta: { name: '@hookwise/plugin-deliverer-platform-11', version: '0.1.0', api: 1 },
  contributes: [customRobotPlatform],
});
