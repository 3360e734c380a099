// The plugin object the gateway loads: one deliverer, email (alias platform_10).
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { smtpMailPlatform } from './smtp-mail';

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [smtpMailPlatform],
});
