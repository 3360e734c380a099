// The plugin object the gateway loads (its name, version and API from package.json): one deliverer, whatsapp.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { whatsappPlatform } from './whatsapp';

export * from './whatsapp';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [whatsappPlatform] });
