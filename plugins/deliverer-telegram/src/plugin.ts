// The plugin object the gateway loads: one deliverer, telegram (alias platform_01).
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { telegramPlatform } from './telegram';

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [telegramPlatform],
});
