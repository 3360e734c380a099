// The plugin object the gateway loads (its name, version and API from package.json): the twitch source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { twitchSource } from './twitch';

export * from './twitch';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [twitchSource] });
