// The plugin object the gateway loads (its name, version and API from package.json): the generic source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { genericSource } from './generic';

export * from './generic';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [genericSource] });
