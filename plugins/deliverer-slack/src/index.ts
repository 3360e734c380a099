// The plugin object the gateway loads (its name, version and API from package.json): one deliverer, slack.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { slackPlatform } from './slack';

export * from './slack';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [slackPlatform] });
