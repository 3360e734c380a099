// The plugin object the gateway loads (its name, version and API from package.json): the shopify source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { shopifySource } from './shopify';

export * from './shopify';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [shopifySource] });
