// The plugin object the gateway loads (its name, version and API from package.json): the sentry source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { sentrySource } from './sentry';

export * from './sentry';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [sentrySource] });
