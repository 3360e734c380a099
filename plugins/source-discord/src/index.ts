// The plugin object the gateway loads (its name, version and API from package.json): the discord source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { discordSource } from './discord';

export * from './discord';
export * from './discord-presses';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [discordSource] });
