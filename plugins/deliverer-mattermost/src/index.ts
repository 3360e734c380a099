// The plugin object the gateway loads (its name, version and API from package.json): one deliverer, mattermost.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { mattermostPlatform } from './mattermost';

export * from './mattermost';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [mattermostPlatform] });
