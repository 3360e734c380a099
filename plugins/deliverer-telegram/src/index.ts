// The plugin object the gateway loads (its name, version and API from package.json): one deliverer, telegram.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { telegramPlatform } from './telegram';

export * from './telegram';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [telegramPlatform] });
