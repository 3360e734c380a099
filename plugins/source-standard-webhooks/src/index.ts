// The plugin object the gateway loads (its name, version and API from package.json): the standard-webhooks source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { standardWebhooksSource } from './standard-webhooks';

export * from './standard-webhooks';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [standardWebhooksSource] });
