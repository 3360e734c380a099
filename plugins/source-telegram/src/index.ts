// @hookwise/plugin-source-telegram: Receives Telegram webhooks. The plugin object (its name, version and API from package.json) and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { telegramSource } from './telegram';

export * from './telegram';
export * from './telegram-replies';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [telegramSource] });
