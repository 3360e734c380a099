// The plugin object the gateway loads (its name, version and API from package.json): the zoom source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { zoomSource } from './zoom';

export * from './zoom';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [zoomSource] });
