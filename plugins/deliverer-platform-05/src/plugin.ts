// The plugin object the gateway loads: one deliverer, platform_05.
import { definePlugin } from '@hookwise/core';
import { smsGatewayPlatform } from './sms-gateway';

export default definePlugin({
  meta: { name: '@hookwise/plugin-deliverer-platform-05', version: '0.1.0', api: 1 },
  contributes: [smsGatewayPlatform],
});
