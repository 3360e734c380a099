// The plugin object the gateway loads: one deliverer, sms (alias platform_05).
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { smsGatewayPlatform } from './sms-gateway';

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [smsGatewayPlatform],
});
