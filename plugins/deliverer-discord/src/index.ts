// The plugin object the gateway loads (its name, version and API from package.json): one deliverer, discord.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { discordPlatform } from './discord';

export * from './discord';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [discordPlatform] });
