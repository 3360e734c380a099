// The plugin object the gateway loads (its name, version and API from package.json): the stripe source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { stripeSource } from './stripe';

export * from './stripe';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [stripeSource] });
