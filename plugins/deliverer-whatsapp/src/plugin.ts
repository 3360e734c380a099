// The plugin object the gateway loads: one deliverer, whatsapp (alias platform_06).
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { whatsappPlatform } from './whatsapp';

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [whatsappPlatform],
});
