// The plugin object the gateway loads (its name, version and API from package.json): the slack source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { slackSource } from './slack';

export * from './slack';
export * from './slack-replies';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [slackSource] });
