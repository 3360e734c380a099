// The plugin object the gateway loads: one deliverer, email (alias platform_10).
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { emailPlatform } from './email';

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [emailPlatform],
});
