// @hookwise/plugin-source-whatsapp: Receives Whatsapp webhooks. The plugin object (its name, version and API from package.json) and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { whatsappSource } from './whatsapp';

export * from './whatsapp';
export * from './whatsapp-replies';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [whatsappSource] });
