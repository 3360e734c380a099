// The plugin object the gateway loads (its name, version and API from package.json): the paddle source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { paddleSource } from './paddle';

export * from './paddle';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [paddleSource] });
