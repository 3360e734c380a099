// The plugin object the gateway loads (its name, version and API from package.json): the linear source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { linearSource } from './linear';

export * from './linear';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [linearSource] });
