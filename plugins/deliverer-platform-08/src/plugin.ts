// The plugin object the gateway loads: one deliverer, mattermost (alias platform_08).
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { postsApiPlatform } from './posts-api';

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [postsApiPlatform],
});
